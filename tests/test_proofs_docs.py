"""proofs/ and the registry cannot drift apart: every check named in a document exists, every
registered check is named in its result's document, and every result has its document."""
import re
from pathlib import Path

from verify.results import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
CHECK_REF = re.compile(r"`\[([A-Za-z0-9_.\-]+)\]`")  # a step names its check as `[thm2.final]`


def referenced(text: str) -> set[str]:
    return set(CHECK_REF.findall(text))


def test_every_result_has_its_document():
    for result in REGISTRY:
        assert (ROOT / result.document).is_file(), result.document


def test_documents_name_existing_checks_and_every_check_is_named():
    known = {c.id for r in REGISTRY for c in r.checks}
    for result in REGISTRY:
        refs = referenced((ROOT / result.document).read_text())
        assert refs <= known, f"{result.document} names unknown checks {refs - known}"
        own = {c.id for c in result.checks}
        assert own <= refs, f"{result.document} does not name {own - refs}"
