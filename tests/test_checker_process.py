"""The independent checker as its own process (proofs/checker.md, section 13): `verify recheck
--independent` starts it with isolated imports and hands it the file and the registered claim
as plain data, so code appended to the engine cannot reach its verdict; and the forgeries of
issue 37 item 3."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


from verify.certify import boxes, certificate  # noqa: E402
from verify.checker import process  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.constants import load, values  # noqa: E402

K = values(load())
ROOT = Path(__file__).resolve().parent.parent
CERTS = ROOT / "certificates"


def write(folder: Path, data, name: str = "cert.json") -> str:
    path = folder / name
    path.write_text(json.dumps(data))
    return str(path)


@pytest.fixture(scope="module")
def forged(tmp_path_factory) -> Path:
    """A two-leaf Proposition 1 certificate whose second leaf stores [5, 6] for a margin near
    0.1: only the checker's agreement test (stored enclosure against its own value) rejects it."""
    root = boxes.log_box(10, 11, 0.1, 0.12)
    run = boxes.Run("prop1", root, 96, [boxes.Leaf(b, 1, *boxes.judge_box("prop1", b, K, 96))
                                        for b in boxes.split(root)])
    data = certificate.certificate(run, K)
    data["leaves"][1]["margins"]["prop1.bound"] = [float(5).hex(), float(6).hex()]
    return Path(write(tmp_path_factory.mktemp("forged"), data))


def test_the_child_is_started_with_isolated_imports():
    argv = process.command()
    assert argv[1:3] == ["-I", "-S"] and "from checker.process import main" in argv[-1]
    probe = argv[-1].replace("from checker.process import main; sys.exit(main())",
                             "import checker.recheck, checker.process, json; print(json.dumps("
                             "sorted({m.split('.')[0] for m in sys.modules})))")
    loaded = json.loads(subprocess.run([*argv[:-1], probe], capture_output=True, text=True,
                                       check=True).stdout)
    assert "checker" in loaded and "flint" in loaded
    assert not {"verify", "sympy", "numpy", "mpmath", "scipy"} & set(loaded)


PATCH = """
open({marker!r}, "w").write("the engine was imported")
import verify.checker.recheck as _checker
_checker._agree_at = lambda *args, **kwargs: None  # the checker's agreement test, replaced
"""


def test_a_patch_appended_to_the_engine_does_not_reach_the_verdict(tmp_path, forged):
    """Issue 37's attack: two lines appended to engine/expectations.py replace the checker's
    agreement test.  In a copy of the tree so patched, the same process that imports the engine
    then accepts the forged certificate; `verify recheck --independent` still rejects it, and
    no process it starts imports the engine (the patch leaves a marker file when it runs)."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "verify", tree / "verify", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "proofs").mkdir()
    shutil.copy(ROOT / "proofs" / "constants.toml", tree / "proofs")
    shutil.copy(ROOT / "pyproject.toml", tree)
    marker = tmp_path / "engine-imported"
    target = tree / "verify" / "engine" / "expectations.py"
    target.write_text(target.read_text() + PATCH.format(marker=str(marker)))
    env = {**os.environ, "PYTHONPATH": str(tree)}

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *argv], cwd=tree, env=env, text=True,
                              capture_output=True, timeout=600)

    live = run("-c", "import verify.engine.expectations, json, sys; "
               "from verify.checker import recheck as r; "
               f"print(r.check(r.read(json.load(open({str(forged)!r})))).ok)")
    assert live.stdout.strip() == "True" and marker.exists()  # the patch works in-process
    marker.unlink()
    found = run("-m", "verify", "recheck", str(forged), "--independent", "--any-box")
    assert found.returncode == 1, found.stdout + found.stderr
    assert "REJECTED: leaf 1" in found.stdout and "misses" in found.stdout
    assert not marker.exists()


def test_a_missing_stored_enclosure_is_named_by_the_child(tmp_path, forged, capsys):
    data = json.loads(forged.read_text())
    assert main(["recheck", str(forged), "--independent", "--any-box"]) == 1
    capsys.readouterr()
    del data["leaves"][1]["margins"]["prop1.bound"]
    assert main(["recheck", write(tmp_path, data), "--independent", "--any-box"]) == 1
    assert "not a finite enclosure" in capsys.readouterr().out


# -- the forgeries of issue 37 item 3 ---------------------------------------------------------------

def committed(name: str) -> dict:
    return json.loads((CERTS / f"{name}.json").read_text())


def raised(data: dict, index: int) -> dict:
    """Leaf ``index`` with every stored lower end raised to 0.999 x its upper end."""
    leaf = data["leaves"][index]
    leaf["margins"] = {c: [float(0.999 * float.fromhex(hi)).hex(), hi]
                       for c, (lo, hi) in leaf["margins"].items()}
    return data


def test_a_raised_lower_end_misses_the_checkers_value_at_the_centre():
    """prop1 leaf 0 with its stored lower end at 0.999 x its upper end: the default recheck's
    comparison with the checker's value at the centre rejects it (the engine's overlap test
    alone passed it)."""
    from verify.checker import recheck

    data = raised(committed("prop1-whole-box"), 0)
    data["leaves"] = data["leaves"][:1]
    found = recheck.agreement(recheck.read(data))
    assert found and found[0].startswith("leaf 0 ") and "misses the checker's value" in found[0]
    assert not recheck.agreement(recheck.read({**committed("prop1-whole-box"),
                                               "leaves": committed("prop1-whole-box")["leaves"][:1]}))


def test_a_raised_cube_lower_end_is_rejected_by_the_default_recheck(tmp_path, capsys):
    assert main(["recheck", write(tmp_path, raised(committed("prop3-cube-d3"), 6))]) == 1
    assert "REJECTED: leaf 6: the stored lower end" in capsys.readouterr().out


@pytest.mark.parametrize("flags", [[], ["--independent"]])
def test_a_cube_claim_comes_from_its_axes_and_binds_to_the_constants(tmp_path, capsys, flags):
    data = committed("prop3-cube-d3")
    data["claim"] = data["claim"].replace("d = 3", "d = 5")
    data["constants"]["prop3.c2"] = "1/100"
    assert main(["recheck", write(tmp_path, data), *flags]) == 1
    out = capsys.readouterr().out
    assert "claim: prop3-cube-d3: d = 3: for every attention alpha in R^3" in out and "d = 5" not in out
    assert "MISMATCH: constant prop3.c2 = 1/100 is not the constants file's 1/10" in out


@pytest.mark.parametrize("flags", [[], ["--independent"]])
@pytest.mark.parametrize("name, edit", [
    ("prop3-cube-d3", lambda d: d.update(constants={})),
    ("thm2-4d-tail-whole-range", lambda d: d["root"].__setitem__(1, "inf")),
    ("prop2-cone-d3", lambda d: d["leaves"][0]["box"].__setitem__(0, "-inf")),
])
def test_malformed_numbers_give_one_line_and_exit_2(tmp_path, capsys, flags, name, edit):
    data = committed(name)
    edit(data)
    assert main(["recheck", write(tmp_path, data), *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("verify: error:") and len(err.strip().splitlines()) == 1


def test_the_checkers_cube_moments_agree_with_the_engines_at_a_point():
    """Two routes to M and m_s at r = (0.3, 0.7), d = 3: the checker's stratified integrals
    (verify/checker/cube.py) and the engine's ratio moments."""
    from flint import arb

    from verify.checker import cube
    from verify.engine.certified.ratios import point_moments

    r = [arb(0.3), arb(0.7)]
    M, m = cube.moments_at(3, r)
    theirs = point_moments(3, r, [0, 1, 2], 96)
    assert all(M[i][j].overlaps(theirs.second[i, j]) for i in range(3) for j in range(3))
    assert all(m[s][i].overlaps(theirs.positive[s][i]) for s in range(3) for i in range(3))


def test_a_raised_cube_lower_end_misses_the_checkers_value_at_a_corner():
    """prop3-cube-d3 leaf 6 at 0.999 x its upper end: above the checker's own max_s F_s - c2 at
    the corner (0.75, 1); the committed leaves agree with it everywhere."""
    from verify.checker import cube, recheck

    data = committed("prop3-cube-d3")
    assert cube.agreement(recheck.read(data)) == []
    found = cube.agreement(recheck.read(raised(data, 6)))
    assert found and found[0].startswith("leaf 6, prop3.all_attention") and "corner" in found[0]


def test_a_constant_name_that_is_not_an_identifier_is_refused(tmp_path, capsys):
    """The hostile review: a constant named "x\\nREJECTED: spoofed" was printed by the binding
    note as a line of its own, the parent's reason for a rejection."""
    data = committed("prop1-whole-box")
    data["constants"]["x\nREJECTED: spoofed"] = "1"
    assert main(["recheck", write(tmp_path, data), "--independent"]) == 2
    out, err = capsys.readouterr()
    assert "REJECTED: spoofed" not in out and "misnamed" in err
