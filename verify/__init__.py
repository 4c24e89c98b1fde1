"""Verifier for Han & Ghoshdastidar, *Training Dynamics of Transformers on Unbounded Inputs*.

Layout: :mod:`verify.engine` computes (word distribution, model, symbolic reduction, exact
population expectations) and knows nothing of the paper's claims; :mod:`verify.cli` presents.

BLAS threads: one per process unless the environment says otherwise (set before numpy loads).
The runner's parallelism is one case per process; the float64 engine's matrices (d x n, n a
few thousand nodes) are too small for BLAS threads to pay, and on a machine whose cores are
all busy with cases a second BLAS thread per process only spins: measured (issue 16), the
Theorem 1 search at d = 32 spent about 9x the CPU-seconds with OpenBLAS's default threads.
Dask's nanny sets the same variables for its workers.
"""
import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from ._version import __version__  # noqa: E402

__all__ = ["__version__"]
