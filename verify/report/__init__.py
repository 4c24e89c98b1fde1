"""Presentation of a run: the per-result summary and every check's table on the terminal, REPORT.md
(summary first, figures, sections, appendix, provenance) and the JSON report, from the runner's
outcomes; the provenance block every report ends with; the helpers the proof notebooks share.
Computes no mathematics; may import :mod:`verify.run`, :mod:`verify.regression`,
:mod:`verify.checks` and :mod:`verify.constants`."""
from .json_report import json_report
from .markdown import markdown
from .rows import exit_code, ledger, ledger_text, overall, rows, verdict_line
from .terminal import exhibit_tables, failures_text, summary_table, terminal_table

__all__ = ["exhibit_tables", "exit_code", "failures_text", "json_report", "ledger", "ledger_text",
           "markdown", "overall", "rows", "summary_table", "terminal_table", "verdict_line"]
