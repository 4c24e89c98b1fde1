"""Shared test set-up: one BLAS thread per process (as the `verify` command sets), mpmath's
precision reset around every test, and the registered Hypothesis profiles: "ci" (the default:
derandomised, so a run gives the same examples on any machine; no deadline, since a shared
machine's timings say nothing) and "explore" (random examples, ten times as many), chosen with
HYPOTHESIS_PROFILE. Both say derandomize explicitly: under a CI variable Hypothesis's own
defaults are derandomised, and a profile that left it out would inherit that."""
import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import mpmath  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _reset_mpmath_precision():
    """Every test starts and ends at mpmath's default precision (no leaked global state)."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
