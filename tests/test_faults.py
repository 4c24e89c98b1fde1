"""The fault table (docs/faults.md, tests/faults.py): every fault planted in shared engine code
turns each symbolic or certified check the table names red, and the table in docs/ lists exactly
the catalogue's faults with those checks (issue 35 item 5)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from faults import FAULTS
from test_mutations import RED, red_status
from verify.checks import Evidence
from verify.results import REGISTRY

DOC = Path(__file__).resolve().parent.parent / "docs" / "faults.md"
BY_ID = {check.id: (result, check) for result in REGISTRY for check in result.checks}


def test_the_table_has_at_least_twelve_faults_each_caught_by_a_symbolic_or_certified_check():
    assert len([f for f in FAULTS if not f.gap]) >= 12 and len({f.name for f in FAULTS}) == len(FAULTS)
    for fault in FAULTS:
        assert fault.caught_by, f"{fault.name}: no check catches it"
        for cid in fault.caught_by:
            assert BY_ID[cid][1].evidence in (Evidence.SYMBOLIC, Evidence.CERTIFIED), cid


ROWS = [pytest.param(fault, cid, id=f"{fault.name}->{cid}",
                     marks=[pytest.mark.xfail(strict=True, reason=fault.gap)] if fault.gap else [])
        for fault in FAULTS for cid in fault.caught_by]


@pytest.mark.parametrize("fault, check_id", ROWS)
def test_the_fault_turns_the_check_red(fault, check_id, monkeypatch):
    """An open row (its ``gap`` said) is a known defect: strict xfail, so it turns into a
    failure, and must be closed in the table, the day a check catches it."""
    result, check = BY_ID[check_id]
    status = red_status(result, check, fault.mutation(check_id), monkeypatch)
    assert status in RED, f"{check_id} is {status!r} under '{fault.name}'"


def test_docs_list_each_fault_with_its_catching_checks():
    text = DOC.read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \*\*(.+?)\*\* \|(?:[^|]*\|){3}([^|]*)\|", text, re.M)}
    assert set(rows) == {f.name for f in FAULTS}, sorted(set(rows) ^ {f.name for f in FAULTS})
    for fault in FAULTS:
        named = set(re.findall(r"`([\w.-]+)`", rows[fault.name]))
        assert named == set(fault.caught_by), (fault.name, named)
