"""Seeded searches shared by the results modules: one result type, four routines.

The paper's floors (Propositions 2-4, Theorem 1) and the low-attention lemma are infima or
suprema over attention or output vectors that no closed form gives; the results modules find
their worst cases with the routines here and keep only what is specific to their statement (the
objective, the structured candidates, the re-evaluation at high precision).

* :func:`nelder_mead` -- SciPy's Nelder-Mead (``scipy.optimize.minimize``) with a fixed budget;
* :func:`adam` -- projected Adam on an objective with its gradient (SciPy has no Adam);
* :func:`minimise_max` -- descent on the log-sum-exp smoothing of ``max_k values(x)_k``;
* :func:`multistart` -- structured candidates, seeded random draws, then smoothed descents.

Same seed, same bytes.  The float64 engine's last bits depend on the CPU (OpenBLAS and numpy
pick SIMD kernels per machine), so every decision of a search -- which point is better, which
step is taken, which target attains a max -- sees objective values rounded to ``SIG_BITS`` = 34
significant bits, about 10 decimal digits (:func:`decisive`), and ties go to the lowest index
(the earlier candidate).  A perturbation of k ulps (2^-52 relative) then changes a decision only
when a value lies within k ulps of a rounding boundary: about k values in 2^19 (half a million);
the descent takes a step only if it lowers the objective by a relative 2^-30 (``SUFFICIENT``),
along a finite-difference gradient rounded to 10 bits (``GRAD_BITS``).
tests/test_search.py perturbs the engine's outputs and checks that a report's bytes do not move.  SciPy's L-BFGS-B is not used for the same reason:
it calls LAPACK (``dpotrf``) and BLAS inside its decision loop.

>>> r = multistart(lambda x: np.array([(x[0] - 1) ** 2, (x[0] + 1) ** 2]), [("0", np.zeros(1))],
...                seed=0, budget=60, dim=1, n_random=2, n_descents=1)
>>> round(r.value, 6), r.family
(1.0, '0')
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy.optimize import minimize

SIG_BITS = 34  # significant bits (about 10 decimal digits) every search decision sees
TAU = 0.01  # temperature of the smoothed max (log-sum-exp) in minimise_max
FD_STEP = 1e-5  # forward-difference step of minimise_max's gradient
GRAD_BITS = 10  # the descent direction to 0.1%: a last-bit change of one value moves a
# finite-difference gradient by ~2^-17 of itself, which this rounding absorbs (127 times in 128)
SUFFICIENT = 2.0**-30  # a descent step is taken only if it lowers the objective by this much
# (relative): improvements in the last bits are where CPUs disagree, so none is taken there
RANDOM_SCALES = (0.1, 0.3, 1.0, 3.0, 10.0)

Candidate = tuple[str, np.ndarray]


def decisive(v, bits: int = SIG_BITS):
    """``v`` (a float or an array) rounded to ``bits`` significant bits (exact: a binary mantissa
    rounded by ``np.round`` and scaled back by ``np.ldexp``, no overflow at any exponent);
    inf, nan and 0 are kept.

    >>> decisive(1.0 + 2.0**-40) == decisive(1.0) == 1.0
    True
    >>> abs(decisive(0.1234567890123) - 0.1234567890123) < 1e-11
    True
    """
    a = np.asarray(v, dtype=np.float64)
    mant, expo = np.frexp(a)  # a = mant 2^expo, 0.5 <= |mant| < 1 (inf/nan pass through)
    out = np.where(np.isfinite(a), np.ldexp(np.round(np.ldexp(mant, bits)), expo - bits), a)
    return float(out) if out.ndim == 0 else out


def argmax(v) -> int:
    """The first index of the largest entry of ``v`` after :func:`decisive` rounding.

    >>> argmax([0.3, 0.3 * (1 + 2.0**-51), 0.1])
    0
    """
    return int(np.argmax(decisive(np.asarray(v, dtype=np.float64))))


def argmin(v) -> int:
    """The first index of the smallest entry of ``v`` after :func:`decisive` rounding."""
    return int(np.argmin(decisive(np.asarray(v, dtype=np.float64))))


@dataclass
class SearchResult:
    """The best point a search found.

    ``value``: its objective (float64, rounded by :func:`decisive`); ``x``: the point; ``family``:
    the name of the start that found it; ``by_family``: family -> (best value, start name);
    ``effort``: counters (evaluations, starts, ...); ``extra``: what the statement needs beside
    (the attaining target, a step size, ...)."""

    value: float
    x: np.ndarray
    family: str
    by_family: dict = field(default_factory=dict)
    effort: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def consider(self, family: str, name: str, x, value: float, **extra) -> bool:
        """Record a candidate; True (and ``self`` updated) when it beats the best so far
        (strictly: a tie keeps the earlier one)."""
        value = decisive(value)
        if family not in self.by_family or value < self.by_family[family][0]:
            self.by_family[family] = (value, name)
        if value < self.value:
            self.value, self.x, self.family = value, np.array(x, dtype=np.float64), name
            self.extra = dict(extra)
            return True
        return False

    @classmethod
    def empty(cls, dim: int) -> "SearchResult":
        return cls(math.inf, np.zeros(dim), "")


# ------------------------------------------------------------------------------ routines


def nelder_mead(f: Callable[[np.ndarray], float], x0: np.ndarray, scale, evals: int) -> tuple:
    """(x, value, evaluations): SciPy's Nelder-Mead from the simplex x0, x0 + scale_i e_i, at most
    ``evals`` calls of ``f`` (no tolerance stops it earlier), on the :func:`decisive` values."""
    x0 = np.asarray(x0, dtype=np.float64)
    n = x0.size
    simplex = np.vstack([x0, x0 + np.diag(np.broadcast_to(np.asarray(scale, float), (n,)))])
    calls = [0]

    def g(x):
        calls[0] += 1
        return decisive(f(x))

    if evals <= 0:
        return x0, math.inf, 0
    res = minimize(g, x0, method="Nelder-Mead",
                   options=dict(initial_simplex=simplex, maxfev=evals, maxiter=10 * evals + 10,
                                xatol=0.0, fatol=0.0))
    return np.asarray(res.x), float(res.fun), calls[0]


def adam(loss_grad: Callable[[np.ndarray], tuple], x0: np.ndarray, steps: int, lr: float,
         project: Callable[[np.ndarray], np.ndarray] = lambda x: x) -> tuple:
    """(smallest loss, its x, calls): ``steps`` Adam steps (beta1 0.9, beta2 0.999) on
    ``loss_grad(x) -> (loss, grad)``, each iterate projected first; loss and gradient are
    :func:`decisive`-rounded so the path does not depend on the engine's last bits."""
    x = np.array(x0, dtype=np.float64)
    m, v = np.zeros_like(x), np.zeros_like(x)
    best, best_x = math.inf, x.copy()
    for t in range(1, steps + 1):
        x = project(x)
        loss, grad = loss_grad(x)
        loss, grad = decisive(loss), decisive(grad)
        if loss < best:
            best, best_x = loss, x.copy()
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        x = x - lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-12)
    return best, best_x, steps


def smoothed_max(v: np.ndarray, tau: float) -> float:
    """tau log sum_k exp(v_k / tau): a smooth upper bound on max v within tau ln(len v)."""
    top = float(v.max())
    return top + tau * math.log(float(np.exp((v - top) / tau).sum()))


def minimise_max(values: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, budget: int,
                 tau: float = TAU, fd: float = FD_STEP) -> tuple:
    """(x, value, evaluations) for min over x of max_k values(x)_k: gradient descent on the
    log-sum-exp smoothing with forward-difference gradients and a backtracking step (doubled
    after a success); stops when the budget of ``values`` calls is spent or no step decreases
    the objective.  Returns the point with the smallest true max seen.

    Hand-written on purpose: SciPy's L-BFGS-B (2-point gradients, same budget) does the descent
    as well or a little better -- the same prop3 floors at d = 3, 10, 20 (budget 1200); on the
    low-attention lemma 0.6184 vs 0.6141 (d = 3, H = 2) and 0.4875 vs 0.4859 (d = 5, H = 3) --
    but its iterates go through BLAS/LAPACK (ddot, dpotrf), whose kernels differ per CPU, so
    the same seed would give different bytes on different machines; it also overran the budget
    (1211 of 1200 calls)."""
    f = lambda y: decisive(values(y))  # noqa: E731
    x = np.array(x0, dtype=np.float64)
    v = f(x)
    used = 1
    best_x, best = x.copy(), float(v.max())
    lr = 1.0
    n = x.size
    while used + n + 1 <= budget:
        f0 = smoothed_max(v, tau)
        grad = np.empty(n)
        for i in range(n):
            e = x.copy()
            e[i] += fd
            grad[i] = (smoothed_max(f(e), tau) - f0) / fd
        grad = decisive(grad, GRAD_BITS)
        used += n
        step, moved = lr, False
        while step > 1e-7 and used < budget:
            trial = x - step * grad
            vt = f(trial)
            used += 1
            if decisive(smoothed_max(vt, tau)) < decisive(f0) - SUFFICIENT * abs(f0):
                x, v, lr, moved = trial, vt, 2 * step, True
                break
            step /= 2
        if float(v.max()) < best:
            best_x, best = x.copy(), float(v.max())
        if not moved:
            break
    return best_x, best, used


def random_points(dim: int, rng: np.random.Generator, n: int) -> list[Candidate]:
    """``n`` Gaussian points with the scales RANDOM_SCALES in turn (seeded)."""
    out = []
    for k in range(n):
        sc = RANDOM_SCALES[k % len(RANDOM_SCALES)]
        out.append((f"random N(0,{sc:g}^2)", rng.normal(size=dim) * sc))
    return out


def multistart(values: Callable[[np.ndarray], np.ndarray], candidates: Sequence[Candidate],
               seed: int, budget: int, dim: int, n_random: int, n_descents: int) -> SearchResult:
    """min over x of max_k values(x)_k: the structured ``candidates``, ``n_random`` seeded random
    draws, then ``n_descents`` :func:`minimise_max` runs (from the best point so far, from a
    small perturbation of 0, then from random points) sharing the remaining budget, and up to
    2 n_descents more from random points while the budget lasts.
    ``effort``: evaluations and starts."""
    rng = np.random.default_rng(seed)
    best = SearchResult.empty(dim)
    used = 0
    for name, x in candidates:
        best.consider("structured", name, x, float(decisive(values(x)).max()))
        used += 1
    for name, x in random_points(dim, rng, n_random):
        best.consider("random", name, x, float(decisive(values(x)).max()))
        used += 1
    starts = len(candidates) + n_random
    remaining = max(budget - used, 0)
    n_descents = min(n_descents, remaining // (dim + 3))  # each needs a gradient and a step
    k = 0
    # the planned descents share the budget; what early stops leave over goes to as many more
    # descents from random points (a descent stops when no step lowers the rounded objective)
    while k < n_descents or (n_descents and k < 3 * n_descents and remaining >= 4 * (dim + 3)):
        share = remaining // (n_descents - k) if k < n_descents else remaining
        if k == 0:
            x0 = best.x
        elif k == 1:
            x0 = 0.05 * rng.normal(size=dim)
        else:
            x0 = rng.normal(size=dim) * rng.choice([0.3, 1.0, 3.0])
        x, value, evals = minimise_max(values, x0, share)
        remaining -= evals
        used += evals
        starts += 1
        origin = "best" if k == 0 else "near 0" if k == 1 else "random"
        best.consider("adversarial", f"descent {k} from {origin}", x, value)
        k += 1
    best.effort = dict(evaluations=used, starts=starts)
    return best
