"""The model at background-symmetric parameters, derived by hand (proofs/checker.md, sections
1-4): the word law, the moments nu_r = E[(1 - gamma_s)^r 1{k >= 1}] by the checker's own
integral with its own tail bound, and Phases 1 and 2 from alpha = beta = 0 in closed form.

Every function takes Arb balls (python-flint) and returns a ball containing the quantity for
every point of its input balls.  Nothing here comes from the engine: no SymPy, no shared kernel.
"""
from __future__ import annotations

import math

from flint import acb, arb

CUT = 64  # t-range [0, CUT] integrated; [CUT, inf) enclosed by the monotone tail bound (sec. 3)
TOL = 2.0**-50  # a goal for acb.integral, not a claim: its ball contains the integral anyway
I = acb(0, 1)
RATE_CELL, RATE_CELLS = 0.05, 32  # cells of ln d for Phase 2's rate over a ball (a choice)
DILOG_TERMS = 130  # p <= 1/2: the tail of Li_2(p) is below 2^-130


def hull(*balls: arb) -> arb:
    """The smallest ball containing every ball given."""
    out = balls[0]
    for b in balls[1:]:
        out = out.union(b)
    return out


def ends(x: arb) -> tuple[arb, arb]:
    """The two ends of a ball, as exact balls."""
    return arb(x.lower()), arb(x.upper())


# -- the word law (section 1) -------------------------------------------------------------------

def dilog_small(p: arb) -> arb:
    """Li_2(p) = sum_m p^m / m^2 for a point 0 <= p <= 1/2, with the geometric tail
    sum_(m > M) p^m/m^2 <= p^(M+1) / ((M+1)^2 (1 - p)) added as a ball."""
    power, total = arb(1), arb(0)
    for m in range(1, DILOG_TERMS + 1):
        power *= p
        total += power / (m * m)
    tail = power * p / ((DILOG_TERMS + 1) ** 2 * (1 - p))
    return total + arb(0).union(tail)


def inverse_length_moments_at(d: arb) -> tuple[arb, arb]:
    """(E[1/m], E[1/m^2]) at a point d > 2: ln(d-1)/(d-2) and Li_2(q)/(d-2) with
    Li_2(q) = pi^2/6 - ln q ln p - Li_2(p) (Euler's reflection; p = 1/(d-1), q = 1 - p)."""
    p = 1 / (d - 1)
    li2_q = arb.pi() ** 2 / 6 - (-p).log1p() * p.log() - dilog_small(p)
    return (d - 1).log() / (d - 2), li2_q / (d - 2)


# -- Phases 1 and 2 from alpha = beta = 0 (section 4) --------------------------------------------

def phase1(d: arb, eta1: arb) -> tuple[arb, arb]:
    """beta' = -eta1 grad_beta L(0, 0), per coordinate: (2 eta1/d, eta1 (d-2)/(d(d-1)))."""
    return 2 * eta1 / d, eta1 * (1 - 2 / d) / (d - 1)


def _rate(d: arb, scale: arb, e1: arb, e2: arb) -> arb:
    pi = 1 / d
    delta = scale / (d.sqrt() * (1 - pi))  # Delta' = eta1/(d - 1); beta'_j = Delta' (1 - 2/d)
    q_ = (2 - delta * (1 - 2 * pi)) * (1 - e1) - delta * (pi + (1 - 3 * pi) * e1 - (1 - 2 * pi) * e2)
    return q_ * (1 + 1 / (d - 1))


def phase2_rate(d: arb, scale: arb) -> arb:
    """ell(d) with Phase 2's attention gap alpha'_s - alpha'_j = C ln(d/eps) ell(d) when
    eta1 = scale sqrt(d) and eta2 = C d^2/eta1 ln(d/eps):
    ell = d/(d-1) [(2 - beta'_j)(1 - E1) - Delta' (1/d + (1 - 3/d) E1 - (1 - 2/d) E2)],
    Delta' = beta'_s - beta'_j = eta1/(d-1), E_i = E[1/m^i].  Over a wide ball of d, the hull
    of its values on cells at most RATE_CELL wide in ln d (E_i from each cell's two ends)."""
    lo, hi = ends(d)
    n = min(RATE_CELLS, max(1, math.ceil(float((hi / lo).log()) / RATE_CELL)))
    step = float((hi / lo).log()) / n
    edges = [lo] + [arb(float(lo) * math.exp(i * step)) for i in range(1, n)] + [hi]
    moments = [inverse_length_moments_at(x) for x in edges]
    return hull(*(_rate(a.union(b), scale, ma[0].union(mb[0]), ma[1].union(mb[1]))
                  for a, b, ma, mb in zip(edges, edges[1:], moments, moments[1:])))


# -- the four scalars (section 2) ---------------------------------------------------------------

def loss_gradient(d, nu1, nu2, beta_s, beta_j) -> tuple:
    """(L, dL/dbeta_s, dL/dbeta_j for one background coordinate) at background-symmetric
    parameters with attention moments nu_1, nu_2: with r = beta_s - 2, D = beta_s - beta_j,
    L = beta_j^2/4 + (r^2/2 - 2 r D nu_1 + D^2 nu_2)/2 (P(y = -1) = 1/2; on positive words
    f - y = r - D (1 - gamma))."""
    r, D = beta_s - 2, beta_s - beta_j
    loss = beta_j * beta_j / 4 + (r * r / 2 - 2 * r * D * nu1 + D * D * nu2) / 2
    return loss, r * (1 - 2 * nu1) / 2 - D * (nu1 - nu2), (beta_j / 2 + r * nu1 - D * nu2) / (d - 1)


# -- the moments nu_1, nu_2 (sections 2-3) --------------------------------------------------------

def _parts(d, c):
    """The pieces of the integrands shared by r = 1, 2 as functions of t (acb or arb)."""
    p = 1 / (d - 1)
    q = 1 - p
    w = 1 - 1 / d  # (d - 1)/d written without a quotient of two balls of d

    def at(t):
        u = t * c / d
        y = (-u).exp()
        # (d - 1)(1 - y) = w t c e^(-u/2) sinh(u/2)/(u/2), sinh(v)/v = sinc(i v): tight in d
        # for small u; -(d - 1) expm1(-u) where u is large (the same number, no overflow)
        small = abs(u).upper() < 1 if isinstance(u, acb) else abs(u) < 1
        dy = w * t * c * (-u / 2).exp() * (I * u / 2).sinc() if small else -(d - 1) * (-u).expm1()
        a_hat = 2 - q * (-t).exp() + q * dy
        b_hat = 2 + q * dy
        ia, ib = 1 / a_hat, 1 / b_hat
        s1 = ia * ib * (ia + ib)
        s2 = ia * ib * (ia * ia + ia * ib + ib * ib)
        return y, s1, s2
    return q, w, at


def scaled_at(d: arb, c: arb) -> tuple[arb, arb]:
    """(J_1, J_2) = (nu_1/c, nu_2/c^2) for d >= 2 (a ball) and c = d e^(-gap) >= 0 (a point or a
    narrow ball; c = 0 is the limit gap -> inf, where y = 1 and the same identity holds):
    J_1 = q int_0^inf e^-t y S_1 dt, J_2 = int_0^inf t e^-t y [(q/d) S_1 + 2 q^2 (1 - 1/d) y S_2] dt
    (section 2).  Both integrands are real on the real axis, so one integral of f_1 + i k f_2
    gives both (k = max(1, c) brings the two to one size: for large c both live at t ~ 1/c)."""
    q, w, at = _parts(d, c)
    first = 1.0 / float(c.upper()) if c.upper() > 1 else 1.0
    k = arb(1 / first)

    def second(t, y, s1, s2):
        return t * (q / d * s1 + 2 * q * q * w * y * s2)

    def f(t, _analytic):
        y, s1, s2 = at(t)
        return (-t).exp() * y * (s1 + I * k * second(t, y, s1, s2))

    edges = [0.0, first]
    while edges[-1] * 4 < CUT:
        edges.append(edges[-1] * 4)
    edges.append(float(CUT))
    total = acb(0)
    for a, b in zip(edges, edges[1:]):
        # absolute goal: TOL^2 of the piece's length times b e^-a (each integrand is at most a
        # few times (1 + t) e^-t; far smaller pieces come first when c is large)
        goal = arb(TOL) ** 2 * (b - a) * (1 + arb(b)) * arb(-a).exp()
        total += acb.integral(f, a, b, rel_tol=TOL, abs_tol=goal)
    # tail [CUT, inf): y, S_1, S_2 decrease in t, so the brackets are at most their values at
    # CUT, and int_T^inf e^-t = e^-T, int_T^inf t e^-t = (T + 1) e^-T
    T = acb(CUT)
    y, s1, s2 = at(T)
    e = (-T).exp() * y
    tail1, tail2 = (e * s1).real, (e * second(arb(1), y, s1, s2) * (T + 1)).real
    return q * (total.real + arb(0).union(tail1.upper())), total.imag / k + arb(0).union(tail2.upper())


def nu_at(d: arb, c: arb) -> tuple[arb, arb]:
    """(nu_1, nu_2) = (c J_1, c^2 J_2) for d >= 2 (a ball) and c >= 0 (a point or a narrow ball)."""
    j1, j2 = scaled_at(d, c)
    return c * j1, c * c * j2


def nu(d: arb, c: arb) -> tuple[arb, arb]:
    """(nu_1, nu_2) over balls of d and c: each nu_r increases in c at fixed d (1 - gamma_s =
    n b/(k + n b) increases in b = c/d on every word), so the ends of c give its ends."""
    if not c.upper() < 2**64:  # (thm2, cor1: c <= d; prop1: c <= 1/attention constant)
        raise ArithmeticError("the range of c is too wide to integrate: split the box")
    lo, hi = (nu_at(d, x) for x in ends(c))
    return hull(lo[0], hi[0]), hull(lo[1], hi[1])


def moments(d: arb, c: arb) -> tuple[arb, arb, arb, arb]:
    """(nu_1, nu_2, J_1, J_2) over balls of d and c >= 0 from the two ends of c: nu_r increases
    in c and J_r = nu_r/c^r = E[(n/(d k + n c))^r 1{k >= 1}] decreases in c (at fixed d, on every
    word); c may reach 0 (the limit v -> 0 of the four-axis boxes, section 11)."""
    if not c.upper() < 2**64:
        raise ArithmeticError("the range of c is too wide to integrate: split the box")
    lo, hi = (c, c) if c.rad() < abs(c.mid()) * 2.0**-64 else ends(c)  # a point: one integral
    lo = lo if lo > 0 else arb(0)  # c = d e^(-gap) >= 0: a ball's rounding below 0 is not c's
    j_lo = scaled_at(d, lo)
    j_hi = j_lo if lo is hi or lo == hi else scaled_at(d, hi)
    return (hull(lo * j_lo[0], hi * j_hi[0]), hull(lo * lo * j_lo[1], hi * hi * j_hi[1]),
            hull(j_lo[0], j_hi[0]), hull(j_lo[1], j_hi[1]))
