"""Table cells a person can read: long vectors shortened, nothing over CELL_LIMIT characters.

The JSON report keeps every detail whole; the markdown report shows the shortened text and, when
a cell had to be cut, puts the whole text in a collapsed block of its appendix.

>>> shorten_vectors("beta = [1, 2, 3, 4, 5, 6, 7, 8], s = 0")
'beta = [1, 2, 3, …] (8 entries), s = 0'
>>> len(fit("x" * 500, 300)) <= 300
True
"""
from __future__ import annotations

import re

CELL_LIMIT = 300  # characters of a markdown table cell with its padding (tests/test_report.py holds REPORT.md to it)
TEXT_LIMIT = CELL_LIMIT - 2  # the text between "| " and " |"
KEEP = 3  # entries of a long vector that stay visible
LONG = 6  # a vector with more entries than this is shortened
_VECTOR = re.compile(r"\[([^\[\]]*)\]")


def shorten_vectors(text: str) -> str:
    """Every bracketed list of more than LONG comma-separated entries becomes its first KEEP
    entries, an ellipsis and its length."""
    def short(match: re.Match) -> str:
        entries = [e.strip() for e in match.group(1).split(",")]
        if len(entries) <= LONG:
            return match.group(0)
        return "[" + ", ".join(entries[:KEEP]) + f", …] ({len(entries)} entries)"
    return _VECTOR.sub(short, text)


def fit(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` with long vectors shortened and, if still too long, cut at a word before
    ``limit`` characters with an ellipsis."""
    text = shorten_vectors(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 2].rsplit(" ", 1)[0]
    return cut + " …"


def escape_cell(text: str) -> str:
    """A markdown table cell: no line breaks, no bare pipes."""
    return text.replace("\n", " ").replace("|", "\\|")
