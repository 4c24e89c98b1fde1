"""Tanh-sinh quadrature of vector-valued integrands on shared nodes (mpmath).

mpmath's ``quad`` integrates one scalar function at a time.  The population expectations of the
paper come in families (moments ``r = 1..4``, the ``d x d`` matrix ``E[gamma gamma^T]``) whose
integrands share all their expensive parts, so this rule evaluates one vector integrand per node
and sums every component with the same weights.  Nodes and weights are mpmath's tanh-sinh rule
(:class:`mpmath.calculus.quadrature.TanhSinh`, with its maps of ``[a, inf]`` to ``[-1, 1]``);
the degree is raised until every component's error estimate (mpmath's extrapolation from the
last three levels, a heuristic, so callers confirm values at a second precision) is below the
tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import mpmath
from mpmath.calculus.quadrature import TanhSinh

Vector = list  # list of mpf
MAX_DOUBLINGS = 400
ROUGH_DEGREE = 3  # levels computed on every interval before the tolerances are set


@dataclass(frozen=True)
class QuadratureResult:
    """Integrals of each component, their estimated absolute errors and the nodes used."""

    values: tuple
    errors: tuple
    evaluations: int

    @property
    def max_relative_error(self) -> mpmath.mpf:
        """Largest estimated relative error over the nonzero components."""
        rel = [e / abs(v) for v, e in zip(self.values, self.errors) if v != 0]
        return max(rel, default=mpmath.mpf(0))


def _estimate_error(levels: Sequence, eps: mpmath.mpf) -> mpmath.mpf:
    """Error extrapolation for one component (Borwein, Bailey & Girgensohn, as in mpmath), on
    differences *relative* to the latest value: each tanh-sinh level roughly doubles the number
    of correct digits, so with r_k = |I_n - I_(n-k)| / |I_n| the error is about
    |I_n| 10^max(log r_1^2 / log r_2, 2 log r_1).  (mpmath works with absolute differences and
    caps the estimate at 1, which is wrong for components far from 1 in size; it also divides
    by log10 d_2 = 0 when d_2 = 1.)  Until both relative differences are below 1 the estimate
    is the larger raw difference."""
    if len(levels) < 3:
        return abs(levels[-1] - levels[-2]) if len(levels) == 2 else mpmath.inf
    if levels[-1] == levels[-2] == levels[-3]:
        return mpmath.mpf(0)
    d1, d2 = abs(levels[-1] - levels[-2]), abs(levels[-1] - levels[-3])
    if d1 == 0 or d2 == 0:
        return eps * abs(levels[-1])
    scale = abs(levels[-1])
    if d1 >= scale or d2 >= scale:
        return max(d1, d2)
    l1, l2 = mpmath.log10(d1 / scale), mpmath.log10(d2 / scale)
    return scale * mpmath.mpf(10) ** max(l1**2 / l2, 2 * l1)


@lru_cache(maxsize=64)
def _standard_nodes(degree: int, prec: int) -> tuple:
    """mpmath's tanh-sinh nodes and weights on [-1, 1] for one level and precision, computed once
    per process: a ``TanhSinh`` keeps them per instance, and each :func:`integrate` makes its
    own (the same numbers as ``rule.get_nodes``, which computes them at ``prec + 20``).  A
    tuple, so that no caller can change the shared table."""
    with mpmath.workprec(prec + 20):
        return tuple(TanhSinh(mpmath.mp).calc_nodes(degree, prec))


@dataclass
class _Interval:
    """Tanh-sinh sums of one interval, level by level (each level halves the step)."""

    f: Callable[[mpmath.mpf], Vector]
    a: mpmath.mpf
    b: mpmath.mpf
    log_scale: bool  # nodes are u = ln t: integrand f(e^u) e^u, the factor e^u folded into w
    levels: list
    evaluations: int = 0

    def refine(self, rule, prec: int, size: int) -> None:
        """Add the next level: only the new nodes are evaluated."""
        degree = len(self.levels) + 1
        with mpmath.workprec(prec + 20):  # as rule.get_nodes does, with the shared table
            nodes = rule.transform_nodes(_standard_nodes(degree, prec), self.a, self.b)
        h = mpmath.ldexp(1, -degree)
        acc = [lv / (2 * h) for lv in self.levels[-1]] if self.levels else [mpmath.mpf(0)] * size
        for x, w in nodes:
            if self.log_scale:
                x = mpmath.exp(x)
                w = w * x
            fx = self.f(x)
            for i in range(size):
                acc[i] += w * fx[i]
        self.evaluations += len(nodes)
        self.levels.append([h * v for v in acc])

    def errors(self, eps) -> list:
        return [_estimate_error([lv[i] for lv in self.levels[-3:]], eps)
                for i in range(len(self.levels[-1]))]


def _references(values: Sequence) -> list:
    """The size each component's tail is measured against: its own value, or for a component
    that is exactly 0 on every node so far (its bound is loose: a relative test could never
    pass) the largest value of the family, or 1 when every component is 0."""
    top = max((abs(v) for v in values), default=mpmath.mpf(0)) or mpmath.mpf(1)
    return [abs(v) if v != 0 else top for v in values]


def integrate(
    f: Callable[[mpmath.mpf], Vector],
    points: Sequence,
    size: int,
    tail_bound: Callable[[mpmath.mpf], Vector],
    rel_tol: mpmath.mpf | None = None,
    max_degree: int | None = None,
) -> QuadratureResult:
    """Integrate the vector function ``f`` over ``[0, inf)``, split at ``points``.

    ``points`` is increasing, starts at 0 and is finite; put the integrand's scales there.  The
    first interval ``[0, t1]`` is integrated in ``t``; every later one in ``u = ln t``
    (integrand ``f(e^u) e^u``), so that nodes near a left end ``a > 0`` keep their relative
    accuracy however long the interval is (a linear map of ``[a, b]`` with ``b >> a`` puts nodes
    at ``a + (b - a)(1 + x)/2`` and loses ``log10(b/a)`` digits there).

    Beyond the last point the range is extended by doubling until ``tail_bound(T)``, a proven
    bound on ``int_T^inf |f_i|`` for each component, is below ``rel_tol`` times the value (for a
    component whose computed value is exactly 0, times the largest value of the family: see
    :func:`_references`); that bound is added to the reported error.  Works at the current ``mpmath.mp`` precision;
    ``rel_tol`` defaults to ``2^-prec``.
    """
    if points[0] != 0 or not all(a < b for a, b in zip(points[:-1], points[1:])):
        raise ValueError("points must increase from 0")
    prec = mpmath.mp.prec
    eps = mpmath.mpf(2) ** (-prec) if rel_tol is None else mpmath.mpf(rel_tol)
    rule = TanhSinh(mpmath.mp)
    top = max_degree if max_degree is not None else rule.guess_degree(prec) + 2
    pieces = [(points[0], points[1], False)]
    pieces += [(mpmath.log(a), mpmath.log(b), True) for a, b in zip(points[1:-1], points[2:])]
    intervals: list[_Interval] = []
    end = points[-1]
    for _ in range(MAX_DOUBLINGS):
        fresh = [_Interval(f, a, b, log, []) for a, b, log in pieces]
        for iv in fresh:  # a first look at every interval fixes the scale of each component
            for _ in range(ROUGH_DEGREE):
                iv.refine(rule, prec, size)
        intervals += fresh
        scale = [abs(sum(iv.levels[-1][i] for iv in intervals)) for i in range(size)]
        for iv in fresh:  # refine until each interval is accurate relative to the whole
            while True:
                if all(e <= eps * sc for e, sc in zip(iv.errors(eps), scale)):
                    break
                if len(iv.levels) >= top:
                    break
                iv.refine(rule, prec, size)
        values = [sum(iv.levels[-1][i] for iv in intervals) for i in range(size)]
        tail = tail_bound(end)
        if all(t <= eps * r for t, r in zip(tail, _references(values))):
            break
        pieces = [(mpmath.log(end), mpmath.log(2 * end), True)]
        end = 2 * end
    else:
        raise ArithmeticError("tail bound did not fall below the tolerance")
    errors = [sum(e) for e in zip(*(iv.errors(eps) for iv in intervals))]
    evaluations = sum(iv.evaluations for iv in intervals)
    errors = [x + y for x, y in zip(errors, tail)]
    return QuadratureResult(tuple(values), tuple(errors), evaluations)
