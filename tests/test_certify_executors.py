"""`verify certify` on executors: the certificate's bytes are the same from one process, a
process pool and a Dask LocalCluster of 2; a journal keeps every judged box, so a stopped run
resumes without judging them again; a journal of another run is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


from verify.certify import box_journal, boxes, certificate, statements  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.run.journal import JournalError  # noqa: E402

CONSTANTS = values(load())
# a tiny 4-D box that needs a few generations of splits (a dozen boxes, seconds)
TINY = ["thm2-4d", "--d", "3", "3.2", "--eps", "0.6", "0.7", "--u", "0.9", "1", "--v", "0.95", "1"]


def _certify(tmp_path: Path, name: str, *flags: str) -> tuple[int, bytes]:
    out = tmp_path / f"{name}.json"
    code = main(["certify", *TINY, "--max-depth", "12", "--output", str(out), *flags])
    return code, out.read_bytes()


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return _certify(tmp_path_factory.mktemp("serial"), "serial")


def test_the_tiny_box_needs_splits_and_is_certified(serial):
    code, raw = serial
    data = json.loads(raw)
    assert code == 0 and len(data["leaves"]) > 2
    assert data["format"] == "verify-certificate/2" and data["axes"] == ["ln d", "ln eps", "u", "v"]
    assert "seconds" not in data and "eta2_min/eta2" in data["claim"]
    assert certificate.recheck(data).ok


@pytest.mark.parametrize("flags", [("--workers", "2"), ("--cluster", "local", "--workers", "2")],
                         ids=["pool", "dask"])
def test_the_certificate_bytes_do_not_depend_on_the_executor(serial, tmp_path, flags):
    if "--cluster" in flags:
        pytest.importorskip("distributed")
    code, raw = _certify(tmp_path, "other", *flags)
    assert code == 0 and raw == serial[1]


def test_a_stopped_run_resumes_from_its_journal(serial, tmp_path, monkeypatch):
    journal = tmp_path / "run.jsonl"
    code, _ = _certify(tmp_path, "cut", "--journal", str(journal), "--max-boxes", "3")
    assert code == 1 and len(journal.read_text().splitlines()) == 1 + 3  # key + 3 boxes
    judged = []
    real = boxes.judge

    def counting(group, box, *args, **kwargs):
        judged.append(box)
        return real(group, box, *args, **kwargs)

    monkeypatch.setattr(boxes, "judge", counting)
    code, raw = _certify(tmp_path, "resumed", "--journal", str(journal))
    data = json.loads(raw)
    assert code == 0 and raw == serial[1]
    assert len(judged) == 2 * len(data["leaves"]) - 1 - 3  # the three journaled are not redone


def test_a_journal_of_another_run_is_refused(tmp_path):
    root = boxes.hypothesis_box(3, 3.2, 0.6, 0.7, u=(0.9, 1.0), v=(0.95, 1.0))
    key = box_journal.run_key("thm2-4d", statements.axes("thm2-4d"), root, CONSTANTS, 96,
                              "centred", 12)
    path = tmp_path / "j.jsonl"
    box_journal.journal(path, key)
    with pytest.raises(JournalError, match="constants"):
        box_journal.journal(path, dict(key, constants={}))
    path.write_text(path.read_text() + '{"box": ["0x1p+0"')  # a last line cut by a stop
    assert box_journal.journal(path, key).done == {}
