"""Execute every proof notebook (notebooks/*.py, jupytext percent format) top to bottom.

Each notebook is read with jupytext, turned into an nbformat notebook and executed by nbclient on
a fresh ``python3`` kernel, failing on the first cell that raises.  The kernel is this test's own
interpreter: a kernelspec pointing at ``sys.executable`` is written into a temporary directory
that is put first on JUPYTER_PATH, so a stale user-level ``python3`` kernelspec cannot run the
notebooks under another Python.  Figures use matplotlib's Agg backend and are saved into a
temporary directory (never into the repository).  Elapsed times are printed beside the run
time each notebook states of itself ("Run time: about N s"), not asserted.
"""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbformat")
ipykernel_kernelspec = pytest.importorskip("ipykernel.kernelspec")
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402  (installed with nbclient)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
CELL_TIMEOUT = 300  # seconds per cell: a hang fails the test instead of blocking CI


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory):
    """Environment for the kernel: this interpreter as ``python3``, Agg, a figure directory."""
    jupyter_dir = tmp_path_factory.mktemp("jupyter")
    ipykernel_kernelspec.write_kernel_spec(jupyter_dir / "kernels" / "python3")  # sys.executable
    figures = tmp_path_factory.mktemp("figures")
    env = {
        "JUPYTER_PATH": os.pathsep.join(
            [str(jupyter_dir), *filter(None, [os.environ.get("JUPYTER_PATH")])]),
        "MPLBACKEND": "Agg",
        "VERIFY_NOTEBOOK_FIGDIR": str(figures),
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",  # quiet debugpy's frozen-modules warning
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.argv[0]).resolve() == Path(sys.executable).resolve(), spec.argv
    yield figures
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_notebooks_found():
    assert NOTEBOOKS, "no notebooks/*.py found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_env, tmp_path, capsys):
    nb = jupytext.read(path)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(tmp_path)}},  # the kernel's working directory
    )
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    stated = re.search(r"Run time: about ([0-9–]+) s", path.read_text())
    with capsys.disabled():  # shown even under -q: watched, not asserted
        print(f"\n{path.name}: executed in {elapsed:.1f} s (the notebook says about "
              f"{stated.group(1) if stated else '?'} s)")
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors
    assert list(kernel_env.glob(f"{path.stem}_*.png")), "the notebook saved no figure"
