"""The command line: parses arguments, chooses the profile, the executor and the outputs, and
presents what the layers below computed; it computes nothing itself.  May import every other
package of ``verify``; nothing imports it.  ``app`` holds the parser and the run commands,
``certified`` the certificate commands, ``regression`` explain/deps/slack/diff.

BLAS threads: the command sets one per process unless the environment says otherwise (before
numpy loads; importing the library ``verify`` changes no environment variable).
The runner's parallelism is one case per process; the float64 engine's matrices (d x n, n a
few thousand nodes) are too small for BLAS threads to pay, and on a machine whose cores are
all busy with cases a second BLAS thread per process only spins: measured, the
Theorem 1 search at d = 32 spent about 9x the CPU-seconds with OpenBLAS's default threads.
Dask's nanny sets the same variables for its workers.
"""
import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from .app import main  # noqa: E402

__all__ = ["main"]
