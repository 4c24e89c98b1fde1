import mpmath
import pytest


@pytest.fixture(autouse=True)
def _reset_mpmath_precision():
    """Every test starts and ends at mpmath's default precision (no leaked global state)."""
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
