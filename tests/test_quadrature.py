"""The vector tanh-sinh rule on integrals with known values, and its tail stopping rule."""
import mpmath
import pytest
from mpmath.calculus.quadrature import TanhSinh

from verify.engine.quadrature import _Interval, integrate


def _exp_family(t):
    """(e^-t, t e^-t, 0): integrals 1, 1, 0 over [0, inf)."""
    x = mpmath.exp(-t)
    return [x, t * x, mpmath.mpf(0)]


def _exp_tail(T):
    """Proven: int_T^inf e^-t = e^-T, int_T^inf t e^-t = (T + 1) e^-T; the bound for the zero
    component is deliberately loose (the same as the first), as engine bounds can be."""
    x = mpmath.exp(-T)
    return [x, (T + 1) * x, x]


def test_known_integrals_and_error_cover_the_truth():
    with mpmath.workdps(30):
        res = integrate(_exp_family, [0, 1, 8], 3, _exp_tail)
        for value, error, truth in zip(res.values, res.errors, (1, 1, 0)):
            assert abs(value - truth) <= error + mpmath.mpf(10) ** -28
        assert res.max_relative_error < mpmath.mpf(10) ** -25


def test_zero_component_with_loose_tail_bound_stops():
    """A component that is exactly 0 cannot meet a relative tail test: it is measured against the
    largest value of the family, so the range stops growing (it used to double up to its cap)."""
    with mpmath.workdps(20):
        res = integrate(_exp_family, [0, 1, 8], 3, _exp_tail)
        assert res.values[2] == 0
        assert res.errors[2] <= mpmath.mpf(2) ** -mpmath.mp.prec * 2
        assert res.evaluations < 2000


def test_all_zero_family_stops():
    with mpmath.workdps(20):
        res = integrate(lambda t: [mpmath.mpf(0)], [0, 1], 1, lambda T: [mpmath.exp(-T)])
        assert res.values == (0,)
        assert res.errors[0] <= mpmath.mpf(2) ** -mpmath.mp.prec


def test_error_estimate_is_relative_to_the_value():
    """The extrapolation works on relative differences: scaling a component scales its error
    (mpmath's absolute version caps the estimate at 1 and divides by zero when a difference is
    exactly 1)."""
    from verify.engine.quadrature import _estimate_error

    with mpmath.workdps(30):
        eps = mpmath.mpf(10) ** -30
        big = mpmath.mpf(10) ** 30
        unsettled = [3 * big, 2 * big, big]  # not converging: the raw difference, not a cap at 1
        assert _estimate_error(unsettled, eps) == 2 * big
        levels = [big + 10**20, big + 10**10, big]  # 20, then 30 digits: the next is about 40+
        assert 10**-20 < _estimate_error(levels, eps) <= 10**-9
        one = [mpmath.mpf(5), mpmath.mpf(4) + mpmath.mpf(10) ** -8, mpmath.mpf(4)]  # d2 = 1
        assert _estimate_error(one, eps) > 0
        small = [x / big**2 for x in levels]
        assert abs(_estimate_error(small, eps) / _estimate_error(levels, eps) - big**-2) < big**-2 * 1e-6
        res = integrate(lambda t: [v * big for v in _exp_family(t)], [0, 1, 8], 3,
                        lambda T: [v * big for v in _exp_tail(T)])
        assert abs(res.values[0] - big) <= res.errors[0] + big * mpmath.mpf(10) ** -28
        assert res.max_relative_error < mpmath.mpf(10) ** -25



@pytest.mark.parametrize("a, b", [(0, 1), (mpmath.mpf("0.25"), mpmath.mpf(3)), (-1, 1)])
@pytest.mark.parametrize("prec", [53, 100, 173])
def test_each_level_uses_mpmaths_nodes_and_weights_to_the_bit(a, b, prec):
    """A level's nodes come from the node table shared by every integrate (mapped to [a, b]);
    they and the level's sums are, bit for bit, those of a fresh TanhSinh's get_nodes (the
    route before: each integrate made its own rule and table)."""
    seen: list = []
    with mpmath.workprec(prec):
        iv = _Interval(lambda x: seen.append(x) or [x * x, mpmath.exp(-x)], mpmath.mpf(a), mpmath.mpf(b), False, [])
        for degree in range(1, 5):
            del seen[:]
            iv.refine(TanhSinh(mpmath.mp), prec, 2)
            nodes = TanhSinh(mpmath.mp).get_nodes(mpmath.mpf(a), mpmath.mpf(b), degree, prec)
            assert [x._mpf_ for x in seen] == [x._mpf_ for x, _ in nodes]
            h = mpmath.ldexp(1, -degree)
            acc = [v / (2 * h) for v in iv.levels[-2]] if degree > 1 else [mpmath.mpf(0)] * 2
            for x, w in nodes:
                acc = [acc[0] + w * (x * x), acc[1] + w * mpmath.exp(-x)]
            assert [v._mpf_ for v in iv.levels[-1]] == [(h * v)._mpf_ for v in acc]
