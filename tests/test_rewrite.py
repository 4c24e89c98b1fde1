"""`verify recheck CERT --rewrite`: a certificate written again by this code (its leaves judged
again from their own boxes, this code's enclosures and fingerprint), refused when a leaf does
not certify again without a split; the certificates' fingerprints cover the code their judge
runs, not the whole package."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest


from verify.certify import boxes, certificate, cube_certificate  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402
from verify.run.journal import PACKAGE, finder_fingerprint, imported_modules  # noqa: E402

CONSTANTS = values(load())
CERTS = Path(__file__).resolve().parent.parent / "certificates"


@pytest.fixture(scope="module")
def small():
    run = boxes.branch_and_bound("prop1", boxes.log_box(10, 60, 0.05, 0.5), CONSTANTS, 96, 30,
                                 max_boxes=400)
    assert run.status is True and len(run.leaves) > 4
    return json.loads(json.dumps(certificate.certificate(run, CONSTANTS)))


def test_a_stale_certificate_is_rewritten_with_the_same_leaves(small, tmp_path, capsys):
    old = {**small, "code": "0" * 64}
    path = tmp_path / "prop1.json"
    path.write_text(json.dumps(old))
    assert main(["recheck", str(path), "--rewrite", "--any-box"]) == 0
    assert "rewritten:" in capsys.readouterr().out
    new = json.loads(path.read_text())
    assert new["code"] == certificate.code_fingerprint() != old["code"]
    assert new["leaves"] == small["leaves"]


def test_a_leaf_that_needs_a_split_is_not_rewritten(small, tmp_path, capsys):
    merged = {**small, "leaves": [{**small["leaves"][0], "box": small["root"], "depth": 0}]}
    path = tmp_path / "prop1.json"
    path.write_text(json.dumps(merged))
    assert main(["recheck", str(path), "--rewrite", "--any-box"]) == 1
    assert "does not certify again without a split: not rewritten" in capsys.readouterr().out
    assert json.loads(path.read_text()) == merged


def test_a_cube_certificate_is_rewritten_keeping_its_finding_runs_cost(tmp_path, capsys):
    path = tmp_path / "prop3-cube-d3.json"
    shutil.copy(CERTS / "prop3-cube-d3.json", path)
    old = json.loads(path.read_text())
    assert main(["recheck", str(path), "--rewrite"]) == 0
    new = json.loads(path.read_text())
    assert new["code"] == cube_certificate.code_fingerprint()
    assert [leaf["box"] for leaf in new["leaves"]] == [leaf["box"] for leaf in old["leaves"]]
    assert (new["judged"], new["cpu_seconds"]) == (old["judged"], old["cpu_seconds"])
    assert main(["recheck", str(path)]) == 0
    again = tmp_path / "two" / "prop3-cube-d3.json"  # on two processes: the same bytes
    again.parent.mkdir()
    shutil.copy(CERTS / "prop3-cube-d3.json", again)
    assert main(["recheck", str(again), "--rewrite", "--workers", "2"]) == 0
    assert again.read_bytes() == path.read_bytes()


def test_the_box_fingerprint_covers_the_judge_and_not_the_report():
    covered = {p.relative_to(PACKAGE).as_posix() for p in imported_modules(certificate.FINDER)}
    assert {"certify/boxes.py", "engine/certified/moments.py"} <= covered
    assert not any(name.startswith(("report/", "cli/", "checker/")) for name in covered)
    assert certificate.code_fingerprint() == finder_fingerprint("certify/boxes.py")


@pytest.mark.parametrize("forgery", ["a leaf dropped", "a leaf twice"])
def test_leaves_that_do_not_tile_the_root_are_not_rewritten(small, tmp_path, capsys, forgery):
    """The hostile review: a gap or an overlap was rewritten with exit 0 and a fresh
    fingerprint, and only then rejected by the checker."""
    leaves = small["leaves"][1:] if forgery == "a leaf dropped" else small["leaves"] + small["leaves"][:1]
    path = tmp_path / "prop1.json"
    path.write_text(json.dumps({**small, "leaves": leaves}))
    assert main(["recheck", str(path), "--rewrite", "--any-box"]) == 1
    assert "do not tile its root" in capsys.readouterr().out
    assert json.loads(path.read_text())["leaves"] == leaves


def test_a_cube_certificate_with_a_gap_is_not_rewritten(tmp_path, capsys):
    data = json.loads((CERTS / "prop3-cube-d3.json").read_text())
    data["leaves"] = data["leaves"][1:]
    path = tmp_path / "prop3-cube-d3.json"
    path.write_text(json.dumps(data))
    assert main(["recheck", str(path), "--rewrite"]) == 1
    assert "do not tile its root" in capsys.readouterr().out
