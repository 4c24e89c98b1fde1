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
# # Proposition 1 (expressivity), step by step
#
# **Claim (paper, text).** For every $d \ge 2$, $\varepsilon \in (0, 1)$ and target $s$, the
# one-head transformer with output $\beta = 2e_s$ and attention $\alpha = \ln(4d/\varepsilon^2)\,e_s$
# has population risk $L_s(\alpha, \beta) \le \varepsilon$ (proof in Appendix A.2; our reading in
# `proofs/prop1.md`).
#
# This notebook walks through that proof with live computation only: every expression below is
# derived by SymPy inside `verify.engine.symbolic`, every number is computed by
# `verify.engine.symmetric` (the exact population loss, no sampling, no truncated word length),
# and every verdict comes from the registered checks of `verify.results.prop1`. Nothing is
# copied in by hand.
#
# Run time: about 15 s on two cores.

# %%
import matplotlib.pyplot as plt
import mpmath
import sympy as sp
from IPython.display import display

from verify import constants as vconst
from verify.report import notebook
from verify.checks import Profile
from verify.engine import symbolic
from verify.engine.symmetric import SymmetricPoint, evaluate
from verify.results import prop1
from verify.results.common import log_grid

sp.init_printing()
CONSTANTS = vconst.values(vconst.load())  # proofs/constants.toml, as exact fractions
show = notebook.figure_saver("prop1")  # displays; saves a PNG when the tests ask

print("prop1.attention_constant =", CONSTANTS["prop1.attention_constant"])

# %% [markdown]
# ## 1. The model at background-symmetric parameters: four scalars
#
# Proposition 1's parameters are *background-symmetric*: every symbol $j \ne s$ has the same
# attention logit $\alpha_j$ and the same output weight $\beta_j$. At such points the model only
# sees the attention on the target, $\gamma_s = k a/(k a + n)$ with $k = C_s(w)$ target symbols,
# $n$ background symbols and $a = e^{\alpha_s - \alpha_j}$. The loss is then a polynomial in
# $\beta_s, \beta_j$ whose coefficients are moments of $\gamma_s$ over the positive words.
#
# `reduce_symmetric("mu")` derives that polynomial from the model definition, with
# $M_r = \mathbb{E}[\gamma_s^r\,1\{k \ge 1\}]$; the `"nu"` family uses
# $M_r = \mathbb{E}[(1-\gamma_s)^r\,1\{k \ge 1\}]$ instead (what the engine uses at positive gaps,
# where $\gamma_s \to 1$ and the `mu` form would cancel digits).

# %%
red_mu = symbolic.reduce_symmetric("mu")
red_nu = symbolic.reduce_symmetric("nu")
L = sp.Symbol("L_s")
print("population loss, mu family (M_r = E[gamma^r 1{k>=1}]):")
display(sp.Eq(L, red_mu.plain(red_mu.loss)))
print("the same loss, nu family (M_r = E[(1-gamma)^r 1{k>=1}]):")
display(sp.Eq(L, red_nu.plain(red_nu.loss)))

# %% [markdown]
# **A.2, step 1.** With $\beta = 2e_s$ we have $f = 2\gamma_s - 1$, so every negative word
# ($\gamma_s = 0$, $y = -1$) has zero loss and only the positive words count. Substituting
# $\beta_s = 2$, $\beta_j = 0$ into the reduction shows exactly that: in the `nu` family the whole
# risk is $2\,\mathbb{E}[(1-\gamma_s)^2 1\{k \ge 1\}]$, a sum over positive words only.

# %%
at_prop1 = {symbolic.beta_s: 2, symbolic.beta_j: 0}
display(sp.Eq(L, sp.simplify(red_mu.plain(red_mu.loss).subs(at_prop1))))
display(sp.Eq(L, sp.simplify(red_nu.plain(red_nu.loss).subs(at_prop1))))

# %% [markdown]
# ## 2. The risk at the proposition's parameters, to 50 digits
#
# The engine evaluates the moments as one Laplace integral each (tanh-sinh quadrature with an
# error bound), so the risk is exact up to the printed error bound. Numbers are read as *strings*
# at the working precision (the README's convention): $\varepsilon$ is given as text, and the gap
# $\ln(4d/\varepsilon^2)$ is computed by `prop1.attention_gap` inside a 60-digit context.
#
# $d = 2$ is a corner: $p = 1/(d-1) = 1$, every word has length one, and the risk is exactly 0.

# %%
DPS_TABLE = 50
rows = []
for d in (2, 10, 10**6):
    for eps in ("1e-6", "0.01", "0.5"):
        with mpmath.workdps(DPS_TABLE + 10):
            gap = prop1.attention_gap(d, mpmath.mpf(eps), CONSTANTS)
        ev = evaluate(SymmetricPoint(d, gap, 0, 2, 0), DPS_TABLE)
        rows.append((d, eps, gap, ev))

print(f"{'d':>8} {'eps':>6} {'gap ln(4d/eps^2)':>18}  {'L_s (30 of 50 digits shown)':<38} {'error bound':>11}  eps/L")
for d, eps, gap, ev in rows:
    ratio = mpmath.mpf(eps) / ev.loss if ev.loss > 0 else mpmath.inf
    print(f"{d:>8} {eps:>6} {mpmath.nstr(gap, 12):>18}  {mpmath.nstr(ev.loss, 30):<38} "
          f"{mpmath.nstr(ev.error['loss'], 2):>11}  {mpmath.nstr(ratio, 4)}  [{ev.family}]")

# %% [markdown]
# The risk is far below $\varepsilon$: it scales like $\varepsilon^4$, not $\varepsilon$, because
# $1 - \gamma_s = n/(n + k\,e^{\text{gap}})$ is of order $\varepsilon^2$ on a typical positive
# word and the loss is quadratic in it. The plot below shows this for a small and a huge
# alphabet, computed by the check's own function `prop1.loss_at_gap` at the check's precision
# (`prop1.DPS` = 20 digits, plenty for a plot; $\varepsilon$ taken as the checks take it, a
# float). The risk at the proposition's gap hardly depends on $d$, because the
# attention weight $e^{\text{gap}} = 4d/\varepsilon^2$ grows like $d$, as fast as the number of
# background symbols in a typical word (the mean word length is $d - 1$).

# %%
EPS_GRID = log_grid(1e-6, 0.9, 6)
D_PLOT = (3, 10**6)
curves = {}
for d in D_PLOT:
    values = []
    for eps in EPS_GRID:
        with mpmath.workdps(prop1.DPS + 10):  # as prop1.bound computes it
            gap = prop1.attention_gap(d, eps, CONSTANTS)
        values.append(prop1.loss_at_gap(d, gap)[0])
    curves[d] = values

fig, ax = plt.subplots(figsize=(6.5, 4.5))
xs = EPS_GRID
ax.plot(xs, xs, "k--", label=r"bound $\varepsilon$")
for (d, values), style in zip(curves.items(), ("o-", "s--")):
    ax.plot(xs, [float(v) for v in values], style, label=f"d = {d:g}")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$L_s(\ln(4d/\varepsilon^2)\,e_s,\ 2e_s)$")
ax.set_title("Proposition 1: exact population risk vs the bound")
ax.legend()
ax.grid(True, which="major", alpha=0.3)
show(fig, "risk_vs_eps")

# %% [markdown]
# ## 3. The proof of A.2, one check per step
#
# Each step of A.2 is a registered check (`verify list`); here we call the checks' own `cases`
# and `judge` functions, the same code `verify all` runs.
#
# | A.2 step | what it says | check id | evidence |
# |---|---|---|---|
# | long words | $P(\lvert w\rvert > 2d/\varepsilon) < e^{-2/\varepsilon}$ | `prop1.long_words` | symbolic |
# | their contribution | $2e^{-2/\varepsilon} < \varepsilon/2$ | `prop1.long_contribution` | symbolic |
# | short positive words | $\gamma_s \ge 2/(2+\varepsilon)$ (needs the constant $\ge 4$) | `prop1.short_attention` | symbolic |
# | their loss | $\tfrac12(2\gamma_s-2)^2 \le 2\varepsilon^2/(2+\varepsilon)^2 < \varepsilon/2$ | `prop1.short_loss` | symbolic |
# | conclusion | $L_s \le \varepsilon$ on the exact population loss | `prop1.bound` | numeric |
# | second sentence | the same for random non-symmetric $\alpha$ whose gap to the largest background logit is $\ln(4d/\varepsilon^2)$ (general engine) | `prop1.general` | numeric |
# | (not a claim) | smallest working gap vs $\ln(4d/\varepsilon^2)$ | `prop1.tightness` | exhibit |
#
# The symbolic checks hold for all $d \ge 2$, $\varepsilon \in (0,1)$ at once; the numeric ones
# are run here on a few cases (`verify check prop1` runs the full grids). The loop runs every
# check registered for the result, so a check added later shows up here too; a failing check
# stops the notebook unless the result documents it as a discrepancy of the paper.

# %%
OPTIONS = {
    "prop1.bound": {"d": list(D_PLOT), "eps": [EPS_GRID[0], EPS_GRID[-1]]},  # cached by the plot
    "prop1.tightness": {"d": [3], "eps": [0.01]},  # also the first point of section 4's curve
}
outcomes = []
for check in prop1.RESULT.checks:
    cases = check.cases(Profile.QUICK, CONSTANTS, OPTIONS.get(check.id, {}))
    for case in cases:
        outcomes.append((check, check.judge(case, CONSTANTS)))

for check, out in outcomes:
    verdict = {True: "PASS", False: "FAIL", None: "undecided"}[out.passed]
    margin = "" if out.margin is None else f"margin {out.margin:.4g} ({out.margin_kind})"
    print(f"[{check.id}] {check.step} | {check.evidence.value} | {out.case} | {verdict} | {margin}")
    print(f"    {check.claim}:  {out.detail}")
failed = sorted({check.id for check, out in outcomes if out.counted and out.passed is not True})
documented = [cid for cid in failed if cid in prop1.RESULT.discrepancies]
print("\nchecks with a failing or undecided case:", failed or "none")
assert failed == documented, f"undocumented failure: {sorted(set(failed) - set(documented))}"

# %% [markdown]
# `prop1.short_attention` is where the constant 4 matters: the check derives the slack
# $\gamma_s - 2/(2+\varepsilon)$ in the worst case ($C_s = 1$, $m = 2d/\varepsilon$) as
# $\varepsilon(c-4)/((2+\varepsilon)(c+2\varepsilon))$ for a constant $c$ in place of 4. At
# $c = 4$ it is exactly $0$ (the margin printed above): the paper's inequality is tight in the
# worst case, so this proof needs $c \ge 4$. Overriding the constant, as
# `verify check prop1.short_attention --set prop1.attention_constant=3` would, makes the step fail:

# %%
for value in ("3", "4", "5"):
    overridden = vconst.values(vconst.with_overrides(vconst.load(), [f"prop1.attention_constant={value}"]))
    check = next(c for c in prop1.RESULT.checks if c.id == "prop1.short_attention")
    out = check.judge(check.cases(Profile.QUICK, overridden, {})[0], overridden)
    print(f"c = {value}: passed = {out.passed}, {out.detail}")

# %% [markdown]
# The risk itself needs much less attention than the proof asks for, as the next section shows.
#
# ## 4. Tightness: how much attention is really needed?
#
# `prop1.smallest_gap` bisects for the smallest gap $g$ with $L_s(g\,e_s, 2e_s) \le \varepsilon$
# (3 significant digits; the risk decreases in $g$). The proposition's gap is
# $\ln(4d/\varepsilon^2)$; points below the diagonal mean the proposition asks for more than needed.

# %%
tight = []
# (3, 0.01) first: prop1.tightness has just run that bisection, still in the engine's cache
for d, eps in ((3, 1e-2), (3, 1e-4), (3, 0.3), (1000, 1e-2), (1000, 1e-4)):
    with mpmath.workdps(prop1.DPS + 10):  # as prop1.tightness computes it
        gap = prop1.attention_gap(d, eps, CONSTANTS)
    need = prop1.smallest_gap(d, eps, max(gap, mpmath.mpf(1)) * 2)
    tight.append((d, eps, gap, need))
    print(f"d = {d:>5}, eps = {eps:<6g}: ln(4d/eps^2) = {mpmath.nstr(gap, 5):>7}, "
          f"smallest working gap = {mpmath.nstr(need, 4)}")

fig, ax = plt.subplots(figsize=(6.5, 4.5))
for d, marker in ((3, "o"), (1000, "s")):
    pts = sorted((float(g), float(n)) for dd, _, g, n in tight if dd == d)
    ax.plot(*zip(*pts), marker + "-", label=f"d = {d}")
top = max(float(g) for _, _, g, _ in tight) * 1.05
ax.plot([0, top], [0, top], "k--", label="smallest gap = proposition's gap")
ax.set_xlabel(r"proposition's gap $\ln(4d/\varepsilon^2)$")
ax.set_ylabel(r"smallest gap with $L_s \leq \varepsilon$")
ax.set_title(r"Proposition 1 tightness ($\varepsilon$ decreases to the right)")
ax.legend()
ax.grid(True, alpha=0.3)
show(fig, "tightness")

# %%
for d, eps, gap, need in tight:
    print(f"d = {d:>5}, eps = {eps:<6g}: the proposition's gap is {mpmath.nstr(gap / need, 3) if need > 0 else 'inf'}"
          f" times the smallest working gap")
assert all(need <= gap for _, _, gap, need in tight)

# %% [markdown]
# The proposition's gap is sufficient at every point (all points lie below the diagonal), with
# room to spare: the ratios printed above are well above one, and a ratio in the gap is a large
# factor in the attention weight $e^{\text{gap}}$. This is consistent with section 2, where the
# risk at the proposition's gap is of order $\varepsilon^4$ rather than $\varepsilon$. Where
# the smallest gap is $0$, uniform attention already reaches $\varepsilon$.
#
# **The second sentence** of the proposition (any $\alpha$ with
# $\alpha_s - \max_{j\ne s}\alpha_j \ge \ln(4d/\varepsilon^2)$) is `prop1.general` in
# section 3: it needs the general, non-symmetric engine (`verify.engine.general`), because the
# background logits differ; the four-scalar engine used everywhere else here covers only the
# symmetric case $\alpha = \ln(4d/\varepsilon^2)\,e_s$.
