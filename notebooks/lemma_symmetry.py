# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The background-symmetry lemma (A.7), step by step
#
# **Claim (paper, text).** If $\alpha_i = \alpha_j$ and $\beta_i = \beta_j$ for all background
# symbols $i, j \ne s$, one population gradient step (on either layer, any step sizes) keeps
# $\alpha'_i = \alpha'_j$ and $\beta'_i = \beta'_j$.
#
# **Proof (text, `proofs/lemma-symmetry.md`).** Swapping two background symbols leaves the word
# distribution and the label unchanged and maps the model at $(\alpha, \beta)$ to the model at
# the swapped parameters; at symmetric parameters the partial derivatives in $i$ and $j$
# therefore agree.
#
# Below, each part of that argument is computed live with the general (non-symmetric) engine
# `verify.engine.general`, which knows nothing of the symmetry, and with exact enumeration over
# count vectors; verdicts come from the registered checks of `verify.results.lemma_symmetry`.
# The lemma is what lets Theorem 2's plan run on four scalars (section 4).
#
# Run time: about 7 s on two cores.

# %%
import random

import matplotlib.pyplot as plt
import mpmath
import numpy as np
import sympy as sp
from IPython.display import display

from verify.report import notebook
from verify.checks import Case
from verify.engine import general, symbolic
from verify.engine.symmetric import SymmetricPoint, evaluate
from verify.results import lemma_symmetry

sp.init_printing()
CONSTANTS = {}  # the lemma has no constants (lemma_symmetry.RESULT.constants is empty)
DPS = lemma_symmetry.DPS  # 25 digits, as the checks use
show = notebook.figure_saver("lemma_symmetry")  # displays; saves a PNG when the tests ask
CHECKS = {c.id: c for c in lemma_symmetry.RESULT.checks}


def run_check(check_id, options):
    return notebook.run_check(lemma_symmetry.RESULT, check_id, CONSTANTS, options)


def background_spread(values, s):
    """max - min of the background coordinates (i != s) of a gradient."""
    back = [values[i] for i in range(len(values)) if i != s]
    return max(back) - min(back)


print("constants of the lemma:", lemma_symmetry.RESULT.constants or "none")

# %% [markdown]
# ## 1. The argument: swapping two background symbols swaps their partials
#
# At a seeded random point with *no* symmetry ($d = 4$, target $s = 0$) we evaluate the loss and
# its full gradient, then again with the parameters of symbols 1 and 2 swapped. The swapped
# point's gradient should be the original gradient with coordinates 1 and 2 swapped, while the
# loss stays the same.

# %%
D, S, I, J = 4, 0, 1, 2
rng = random.Random(0)
alpha = [repr(rng.uniform(-2, 2)) for _ in range(D)]
beta = [repr(rng.uniform(-1, 3)) for _ in range(D)]
swap = list(range(D))
swap[I], swap[J] = J, I
ev = general.evaluate(D, S, alpha, beta, DPS)
ev_swapped = general.evaluate(D, S, [alpha[k] for k in swap], [beta[k] for k in swap], DPS)
with mpmath.workdps(DPS):
    print(f"loss {mpmath.nstr(ev.loss, 20)}, after the swap {mpmath.nstr(ev_swapped.loss, 20)}")
    for name, g, g2 in (("alpha", ev.grad_alpha, ev_swapped.grad_alpha), ("beta", ev.grad_beta, ev_swapped.grad_beta)):
        moved = max(abs(g2[k] - g[swap[k]]) for k in range(D))
        print(f"dL/d{name} = {[mpmath.nstr(x, 8) for x in g]}; background spread {mpmath.nstr(background_spread(g, S), 3)}")
        print(f"   swapped point: largest |grad'(k) - grad(swap(k))| = {mpmath.nstr(moved, 3)}")

# %% [markdown]
# The background coordinates differ at this point, and the swap just moves them: that is the
# equivariance the proof uses. At a background-symmetric point the swap changes nothing, so
# the partials in $i$ and $j$ must be equal.
#
# ## 2. At symmetric points the background partials agree; perturbed, they do not
#
# `lemma_symmetry.symmetric_parameters` draws a random target and background-symmetric
# $(\alpha, \beta)$; its `perturb` argument moves one background logit by $\varepsilon$. We plot
# the spread (max − min) of the background coordinates of both gradients against
# $\varepsilon$, from the engine's float64 path (`general.evaluate_float`; its error estimates
# are printed, far below the spreads). At $\varepsilon = 0$ the spread is exactly $0$ (not
# drawable on a log axis); the 25-digit engine gives the same zeros in section 3.

# %%
EPS = (0.0, 1e-8, 1e-6, 1e-4, 1e-2, 1.0)
sweep = {}
for d in (3, 5, 8):
    rows = []
    for eps in EPS:
        s, a, b = lemma_symmetry.symmetric_parameters(d, seed=0, perturb=eps)
        e = general.evaluate_float(d, s, np.array(a, dtype=float), np.array(b, dtype=float))
        rows.append((eps, background_spread(e.grad_alpha, s), background_spread(e.grad_beta, s),
                     max(e.grad_alpha_error.max(), e.grad_beta_error.max())))
    sweep[d] = rows
    for eps, sa, sb, err in rows:
        print(f"d = {d}, eps = {eps:<6g}: spread of dL/dalpha {sa:10.4g}, of dL/dbeta {sb:10.4g} "
              f"(error estimate {err:.1e})")

fig, ax = plt.subplots(figsize=(6.5, 4.5))
for k, (d, marker) in enumerate(((3, "o"), (5, "s"), (8, "^"))):
    pts = [row for row in sweep[d] if row[0] > 0]
    xs = [eps for eps, *_ in pts]
    ax.plot(xs, [sa for _, sa, _, _ in pts], marker + "-", color=f"C{k}",
            label=rf"$\partial L/\partial\alpha$, d = {d}")
    ax.plot(xs, [sb for _, _, sb, _ in pts], marker + "--", color=f"C{k}", mfc="none",
            label=rf"$\partial L/\partial\beta$, d = {d}")
ax.text(0.03, 0.95, r"$\varepsilon = 0$ (symmetric): spread exactly 0 for every d",
        transform=ax.transAxes, va="top")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"perturbation $\varepsilon$ of one background logit")
ax.set_ylabel("spread of the background gradient coordinates")
ax.set_title("Perturbed points: the spread grows like ε")
ax.legend(fontsize=8, loc="lower right")
ax.grid(True, alpha=0.3)
show(fig, "spread")
assert all(sa == 0 and sb == 0 for d in sweep for eps, sa, sb, _ in sweep[d] if eps == 0)

# %% [markdown]
# ## 3. The registered checks
#
# `lemma-symmetry.step` takes one gradient step of both layers with random step sizes between
# $10^{-2}$ and $10^2$ and requires equal background coordinates afterwards (to working
# precision). The engine treats equal inputs with identical operations, so its exact zeros could
# come from its construction rather than from the lemma. `lemma-symmetry.enumeration` therefore
# repeats the test by exact enumeration over count vectors (words up to a length cut-off): there
# each word's gradient favours the symbols the word contains, and the equality of the totals
# comes only from the exchangeability of the word distribution, which is the lemma's argument.

# %%
outcomes = run_check("lemma-symmetry.step", {"d": [3, 4]}) + run_check("lemma-symmetry.enumeration", {"d": [3, 4]})
assert all(out.passed for out in outcomes)

# %% [markdown]
# The step check can fail: the same judge on a perturbed case ($\varepsilon = 10^{-3}$).

# %%
check = CHECKS["lemma-symmetry.step"]
out = check.judge(Case("d=4, seed=0, perturbed", {"d": 4, "seed": 0, "perturb": 1e-3}), CONSTANTS)
print(f"[{check.id}] {out.case}: passed = {out.passed} | {out.detail}")
assert out.passed is False

# %% [markdown]
# ## 4. What the lemma buys: four scalars
#
# By the lemma every iterate of Theorem 2's plan is background-symmetric, so the loss and
# gradient reduce to the four scalars $\alpha_s, \alpha_j, \beta_s, \beta_j$. SymPy derives the
# reduced gradient from the model (`symbolic.reduce_symmetric`; $M_r$ are moments of
# $\gamma_s$); here the per-coordinate background output partial:

# %%
red = symbolic.reduce_symmetric("mu")
display(sp.Eq(sp.Symbol("dL/dbeta_j"), red.plain(red.grad["beta_j"])))

# %% [markdown]
# The four-scalar engine built on that reduction agrees with the general engine's full
# gradient at a symmetric point (two independent computations):

# %%
d, DPS4 = 5, 20
s, a, b = lemma_symmetry.symmetric_parameters(d, seed=1)
j = (s + 1) % d
full = general.evaluate(d, s, a, b, DPS4)
four = evaluate(SymmetricPoint(d, a[s], a[j], b[s], b[j]), DPS4)
pairs = {"alpha_s": full.grad_alpha[s], "alpha_j": full.grad_alpha[j],
         "beta_s": full.grad_beta[s], "beta_j": full.grad_beta[j]}
with mpmath.workdps(DPS4):
    print(f"d = {d}, s = {s}: loss {mpmath.nstr(full.loss, 20)} (general) vs {mpmath.nstr(four.loss, 20)} (four scalars)")
    for key, value in pairs.items():
        print(f"  dL/d{key:<8} general {mpmath.nstr(value, 20):>24}   four scalars {mpmath.nstr(four.grad[key], 20):>24}"
              f"   difference {mpmath.nstr(abs(value - four.grad[key]), 2)}")
    assert max(abs(value - four.grad[key]) for key, value in pairs.items()) < mpmath.mpf(10) ** (-DPS4 + 5)
