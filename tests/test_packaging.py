"""Packaging: the wheel installs and runs outside the checkout, carries the default constants and
nothing else of the project's tree; one version source; the notebooks open in JupyterLab."""
import asyncio
import hashlib
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import types
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import verify
from verify import constants

ROOT = Path(__file__).resolve().parent.parent
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "verify",
                "proofs/constants.toml")


def _check_dist():
    spec = importlib.util.spec_from_file_location("check_dist", ROOT / ".ci" / "check_dist.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _setuptools_can_build() -> bool:
    try:
        return int(metadata.version("setuptools").split(".")[0]) >= 77
    except metadata.PackageNotFoundError:
        return False


def _build_wheel(tmp: Path) -> Path:
    """Build the wheel offline from a copy of the build inputs (the checkout stays clean)."""
    src = tmp / "src"
    for name in BUILD_INPUTS:
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, target)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "-w", str(tmp / "dist"), str(src)], check=True)
    (wheel,) = (tmp / "dist").glob("verify-*.whl")
    return wheel


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.skipif(not _setuptools_can_build(), reason="needs setuptools >= 77 (the test extra)")
def test_wheel_installs_into_a_fresh_venv_and_runs_from_another_folder(tmp_path):
    wheel = _build_wheel(tmp_path)
    assert _check_dist().wheel_problems(wheel, (ROOT / "proofs/constants.toml").read_bytes()) == []
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-index", "--quiet", str(wheel)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies come from this environment (offline); a plain path line, so that its .pth
    # files (an editable install of verify) are not processed and the wheel's verify is the one used
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    work = tmp_path / "work"
    work.mkdir()
    run = lambda *argv: subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True,
                                       timeout=300)

    where = run(str(python), "-c", "import importlib.metadata as m, verify; "
                "print(m.version('verify'), verify.__version__, verify.__file__)")
    assert where.returncode == 0, where.stderr
    installed, declared, location = where.stdout.split()
    assert installed == declared == verify.__version__ == wheel.name.split("-")[1]
    assert Path(location).is_relative_to(site)

    before = _files(site)
    version = run(str(venv / "bin" / "verify"), "--version")
    assert version.returncode == 0, version.stderr
    lines = version.stdout.splitlines()
    assert lines[0] == f"verify {verify.__version__}"
    assert "constants file: verify/data/constants.toml (packaged default)" in lines
    assert f"constants sha256: {constants.sha256()}" in lines  # the same bytes as the checkout's
    assert "git commit: unknown" in lines  # an installed package names no commit

    checked = run(str(venv / "bin" / "verify"), "check", "prop1.bound", "--profile", "quick",
                  "--d", "10", "--eps", "0.5", "--output", "prop1.md", "--json", "prop1.json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # no REPORT.md: only what was asked for, and the report's own figures beside it
    assert _files(work) == {"prop1.md", "prop1.json", "prop1-figures", "prop1-figures/blueprint.png"}
    assert "## Provenance" in (work / "prop1.md").read_text()
    assert _files(site) == before  # nothing written into site-packages


def test_check_dist_rejects_a_wheel_with_tests_and_without_constants(tmp_path):
    check = _check_dist()
    good, bad = tmp_path / "good.whl", tmp_path / "bad.whl"
    with zipfile.ZipFile(good, "w") as archive:
        archive.writestr(check.CONSTANTS, b"x = 1\n")
        archive.writestr("verify-0.1.0.dist-info/licenses/LICENSE", "BSD")
        for name in check.REQUIRED:
            archive.writestr(name, "{}")
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("verify/__init__.py", "")
        archive.writestr("tests/test_cli.py", "")
        archive.writestr("notebooks/prop1.ipynb", "{}")
    assert check.wheel_problems(good, b"x = 1\n") == []
    assert len(check.wheel_problems(good, b"x = 2\n")) == 1  # a stale packaged copy
    problems = " ".join(check.wheel_problems(bad, b"x = 1\n"))
    assert "tests/test_cli.py" in problems and "prop1.ipynb" in problems
    assert "no verify/data/constants.toml" in problems and "no LICENSE" in problems
    assert "no verify/regression/dependency_map.json" in problems


def test_the_version_has_one_source():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, name = attr.rpartition(".")
    assert getattr(importlib.import_module(module), name) == verify.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{verify.__version__}]" in changelog  # every released version has its entry


def test_licence_and_citation_are_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    assert "BSD 3-Clause License" in (ROOT / "LICENSE").read_text()
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version: 1.2.0" in citation and f'version: "{verify.__version__}"' in citation
    assert "Training Dynamics of Transformers on Unbounded Inputs" in citation


def test_checkout_reads_the_file_users_edit():
    assert constants.in_checkout()
    assert constants.default_source() == constants.CHECKOUT_FILE
    assert constants.source_label() == "proofs/constants.toml"
    assert constants.sha256() == hashlib.sha256(constants.CHECKOUT_FILE.read_bytes()).hexdigest()


def test_jupyterlab_opens_the_paired_notebooks_through_jupytext():
    """The notebooks extra's JupyterLab enables jupytext's server extension, which installs
    jupytext's contents manager: a notebooks/*.py file then opens as a notebook.  No server runs:
    the extension is loaded on a stand-in for the server application."""
    pytest.importorskip("jupyterlab", reason="the notebooks extra is not installed")
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyter_server.serverapp import ServerApp
    from traitlets.config import Config, Configurable

    enabled = ExtensionConfigManager(read_config_path=jupyter_config_path()).get_jpserver_extensions()
    assert enabled.get("jupyterlab") and enabled.get("jupyterlab_jupytext")
    app = Configurable(config=Config({"ContentsManager": {"root_dir": str(ROOT / "notebooks")}}))
    app.contents_manager_class = ServerApp.contents_manager_class.default_value
    app.log = logging.getLogger("jupytext-test")
    app.session_manager = types.SimpleNamespace()
    app.web_app = types.SimpleNamespace(settings={})
    importlib.import_module("jupyterlab_jupytext").load_jupyter_server_extension(app)
    assert hasattr(app.contents_manager, "formats")  # jupytext's contents manager
    model = app.contents_manager.get("prop1.py")
    if asyncio.iscoroutine(model):
        model = asyncio.run(model)
    assert model["type"] == "notebook"
    assert {cell["cell_type"] for cell in model["content"]["cells"]} == {"markdown", "code"}
