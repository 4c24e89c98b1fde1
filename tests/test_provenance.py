"""Provenance: every report and every --json names what produced it; `verify --version` prints the
same items; timings stay out of the bytes that must reproduce; help says what each command does."""
import argparse
import hashlib
import json
import shutil
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

import verify
from verify.cli import app as cli
from verify.cli import run as cli_run
from verify import constants
from verify.report import provenance
from verify.checks import Profile
from verify.cli import main
from verify.run.journal import code_fingerprint

CHECK = ["check", "prop1.long_words", "--profile", "quick"]  # one symbolic case: fast


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_record_names_code_constants_settings_and_environment():
    prov = provenance.record("c.toml", "abc", ["thm2.C=3"], "quick", seed=7)
    assert prov["verify version"] == verify.__version__
    assert prov["code fingerprint"] == f"sha256:{code_fingerprint()}"
    assert (prov["constants file"], prov["constants sha256"]) == ("c.toml", "abc")
    assert prov["constants overrides"] == "thm2.C=3"
    assert (prov["profile"], prov["seed"]) == ("quick", "7")
    for name in ("mpmath", "gmpy2", "sympy", "numpy"):
        assert prov[name] == metadata.version(name)
    assert prov["mpmath backend"] in ("gmpy", "python", "sage")
    assert {"git commit", "python", "platform", "numpy BLAS"} <= set(prov)
    assert "seconds" not in json.dumps(prov)
    assert provenance.record("c.toml", "abc", [], "quick")["seed"] == provenance.SEED_PER_CASE


def test_optional_libraries_are_named_only_when_installed(monkeypatch):
    real = metadata.version

    def version(name):
        if name == "dask":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(provenance.metadata, "version", version)
    libs = provenance.library_versions()
    assert "dask" not in libs and libs["numpy"] == real("numpy")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_commit_clean_dirty_and_not_a_checkout(tmp_path):
    git = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], check=True, capture_output=True)
    git("init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "REPORT.md").write_text("old\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert provenance.git_commit(tmp_path) == head
    (tmp_path / "REPORT.md").write_text("regenerated\n")  # a rewritten report is not a code change
    assert provenance.git_commit(tmp_path) == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.git_commit(tmp_path) == f"{head} (dirty)"
    (tmp_path / "site").mkdir()  # a package installed somewhere inside another repository
    assert provenance.git_commit(tmp_path / "site") == "unknown"


def test_git_absent_degrades_to_unknown(monkeypatch, tmp_path):
    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(provenance.subprocess, "run", no_git)
    assert provenance.git_commit(tmp_path) == "unknown"
    assert provenance.code()["git commit"] == "unknown"


def test_reports_carry_provenance_and_keep_timings_apart(capsys, tmp_path):
    md, js = tmp_path / "r.md", tmp_path / "r.json"
    code, _, _ = run(capsys, *CHECK, "--set", "prop1.attention_constant=4",
                     "--output", str(md), "--json", str(js))
    assert code == 0
    data = json.loads(js.read_text())
    prov = data["provenance"]
    assert prov["constants file"] == "proofs/constants.toml"
    assert prov["constants sha256"] == hashlib.sha256(constants.CHECKOUT_FILE.read_bytes()).hexdigest()
    assert prov["constants overrides"] == "prop1.attention_constant=4"
    assert prov["profile"] == "quick"
    text = md.read_text()
    section = text.split("## Provenance")[1]
    assert all(f"- {name}: `{value}`" in section for name, value in prov.items())
    assert all("seconds" not in row for row in data["checks"])
    assert set(data["timings"]["seconds"]) == {"prop1.long_words"}


def test_same_run_gives_the_same_bytes(capsys, tmp_path):
    outputs = []
    for n in (1, 2):  # one folder a run, the same names: the report names its figures' folder
        (tmp_path / str(n)).mkdir()
        md, js = tmp_path / str(n) / "r.md", tmp_path / str(n) / "r.json"
        assert run(capsys, *CHECK, "--output", str(md), "--json", str(js))[0] == 0
        data = json.loads(js.read_text())
        del data["timings"]
        outputs.append((md.read_bytes(), data))
    assert outputs[0] == outputs[1]


def test_another_constants_file_is_named_with_its_hash(capsys, tmp_path):
    other = tmp_path / "mine.toml"
    other.write_bytes(constants.CHECKOUT_FILE.read_bytes() + b"\n# edited\n")
    js = tmp_path / "r.json"
    assert run(capsys, *CHECK, "--constants", str(other), "--json", str(js))[0] == 0
    prov = json.loads(js.read_text())["provenance"]
    assert prov["constants file"] == str(other)
    assert prov["constants sha256"] == hashlib.sha256(other.read_bytes()).hexdigest()
    assert prov["constants sha256"] != constants.sha256()


def test_plan_and_eval_json_carry_provenance(capsys):
    code, out, _ = run(capsys, "plan", "three-phase", "--d", "5", "--eps", "0.1", "--json")
    assert code == 0 and json.loads(out)["provenance"]["constants file"] == "proofs/constants.toml"
    code, out, _ = run(capsys, "eval", "--d", "3", "--json")
    prov = json.loads(out)["provenance"]
    assert code == 0 and prov["verify version"] == verify.__version__ and "profile" not in prov


def test_version_prints_one_item_per_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"verify {verify.__version__}"
    items = dict(line.split(": ", 1) for line in lines[1:])
    assert items["code fingerprint"] == f"sha256:{code_fingerprint()}"
    assert items["constants sha256"] == constants.sha256()
    assert {"git commit", "python", "mpmath", "sympy", "numpy", "gmpy2", "platform"} <= set(items)


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_help_says_what_each_command_is_for_with_an_example():
    top = cli.build_parser().format_help()
    assert "computes nothing" not in top and "verify all" in top
    for name, parser in _subcommands().items():
        text = parser.format_help()
        assert f"example:\n  verify {name}" in text, name
        assert parser.description, name


@pytest.mark.parametrize("argv,ids,expected", [
    (["all"], None, cli_run.REPORT_PATH),
    (["all", "--profile", "quick"], None, None),
    (["all", "--profile", "full"], None, None),
    (["all", "--profile", "quick", "--output", "q.md"], None, Path("q.md")),
    (["check", "prop1"], ["prop1"], None),
])
def test_only_the_default_profile_writes_report_md(argv, ids, expected):
    args = cli.build_parser().parse_args(argv)
    assert cli_run.report_path(args, ids, Profile(args.profile)) == expected


def test_report_md_goes_to_the_current_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert cli_run.REPORT_PATH.resolve() == tmp_path / "REPORT.md"
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "full.md").write_text("# Theorem report\n")
    assert len(cli_run.companion_links(Path("REPORT.md"), Profile.DEFAULT)) == 1
