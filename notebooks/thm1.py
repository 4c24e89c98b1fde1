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
# # Theorem 1 (one attention step first, then the output), step by step
#
# **Claim (reconstructed statement, constants from the text; see `proofs/thm1.md`).** For
# $d \ge 9$: start from uniform attention $\alpha = 0$ and an output $\beta^{(0)}$ chosen without
# knowing the target. Take one attention step $\alpha'_s = -\eta\,\nabla_\alpha L_s(0, \beta^{(0)})$
# with any $\eta \ge 0$, then pick *any* output $\beta$. Some target $s$ still has
# $L_s(\alpha'_s, \beta) \ge c_3 = 1/6912$.
#
# Only part of the proof (A.6) survives in the text; `proofs/thm1.md` reconstructs the lost step 3
# and proves every step for every $d \ge 9$. Below, each step is computed live: expressions come
# from SymPy functions in `verify.results.thm1_steps` and `thm1_step3`, numbers come from the
# general engine (`verify.engine.general`), and verdicts come from the registered checks. Section
# 6 adds the measured floor (search evidence beside the proof).
#
# Run time: about 20 s on two cores.

# %%
import matplotlib.pyplot as plt
import mpmath
import numpy as np
import sympy as sp
from IPython.display import display

from verify import constants as vconst
from verify.report import notebook
from verify.checks import Profile
from verify.engine import general
from verify.engine.distribution import WordDistribution
from verify.results import thm1, thm1_step3, thm1_steps

sp.init_printing()
CONSTANTS = vconst.values(vconst.load())  # proofs/constants.toml, as exact fractions
show = notebook.figure_saver("thm1")  # displays; saves a PNG when the tests ask
CHECKS = {c.id: c for c in thm1.RESULT.checks}
OUTCOMES = []  # (check id, outcome) of every check run in this notebook


def run_check(check_id, options=None):
    OUTCOMES.extend((check_id, o) for o in notebook.run_check(thm1.RESULT, check_id, CONSTANTS, options))


DPS = 50  # digits for the inequalities below
C3 = CONSTANTS["thm1.c3"]
C_LARGE = CONSTANTS["thm1.c_large_output"]
print("thm1.c3 =", C3, "  thm1.c_large_output =", C_LARGE)

# %% [markdown]
# ## 1. Insertions (A.6, step 1)
#
# Take a negative word $z$ (no $s$ in it) of length $m \ge d$. Inserting one $s$ at any of the
# $m + 1$ places gives the set $Z(z)$ of positive words. `insertion_ratio_formula` builds
# $\rho(Z(z))/\rho(z)$ from the word law $\rho(w) = p\,q^{m-1}d^{-m}$, and SymPy simplifies it.
# The proof needs this ratio to be at least $\tfrac12$. Writing $d = 3 + k$ and $m = d + j$ turns
# the slack into a fraction whose numerator and denominator have non-negative coefficients.

# %%
ratio = thm1_steps.insertion_ratio_formula()
d, m = sorted(ratio.free_symbols, key=lambda x: x.name)
k, j = sp.symbols("k j", nonnegative=True)
display(sp.Eq(sp.Symbol("rho(Z(z))/rho(z)"), ratio))
slack = sp.factor(sp.together(ratio.subs(m, d + j).subs(d, 3 + k) - sp.Rational(1, 2)))
display(sp.Eq(sp.Symbol("ratio - 1/2 (d = 3+k, m = d+j)"), slack))

# %% [markdown]
# Here is one word worked out exactly: the inserted words come from `insertion_words`, and their
# probabilities come from the distribution module. The worst case is $m = d$. There the ratio
# (50 digits) is smallest at $d = 3$ and tends to 1 as $d$ grows.

# %%
z, s0 = (1, 2, 1), 0
Zz = sorted(thm1_steps.insertion_words(z, s0))
dist = WordDistribution(3)
print(f"d = 3, z = {z}: Z(z) = {Zz}")
print("  rho(z) =", dist.word_probability(z), "; rho of each inserted word:",
      [str(dist.word_probability(w)) for w in Zz])
print("  exact ratio", thm1_steps.insertion_ratio(3, z, s0), "= formula", ratio.subs({d: 3, m: len(z)}))
for dd in (3, 4, 9, 100, 10**6):
    print(f"  m = d = {dd:>7}: ratio = {sp.N(ratio.subs({d: dd, m: dd}), DPS)}")

# %%
run_check("thm1.insertion_ratio");

# %% [markdown]
# ## 2. The attention is spread out (A.6, first case $\max_{i \ne s} a_i \ge d/2$)
#
# In this case the symbol with the largest weight shows up in $z$ with probability
# $1 - (1 - \tfrac1{d-1})^m \ge 1 - (1 - \tfrac1{d-1})^{d/2}$. The proof bounds this by
# $1 - e^{-1/2} \ge 1/8$. `thm1_steps.appearance_probability()` is that quantity; SymPy shows that its
# limit is exactly $1 - e^{-1/2}$, so the middle bound is tight for large $d$. The table gives
# 50-digit values.

# %%
appear = thm1_steps.appearance_probability()
display(sp.Eq(sp.Symbol("P_appear"), appear))
log_limit = sp.limit(sp.log(1 - appear), d, sp.oo)  # limit of the log: much faster for SymPy
display(sp.Eq(sp.Symbol("limit_(d->oo) appearance"), 1 - sp.exp(log_limit)))
appear_mp = sp.lambdify(d, appear, "mpmath")  # exact powers of huge d would be slow in SymPy
with mpmath.workdps(DPS + 10):
    for dd in (3, 9, 12, 100, 10**6):
        print(f"d = {dd:>7}: {mpmath.nstr(appear_mp(mpmath.mpf(dd)), DPS)}")
print("1 - e^(-1/2) =", sp.N(1 - sp.exp(sp.Rational(-1, 2)), DPS), " vs 1/8")

# %%
run_check("thm1.appearance");

# %% [markdown]
# ## 3. The lost step, reconstructed: the target, the second moments, $\ell \ge 1/8$
#
# The text lost how the target is chosen, the case $\max_{i \ne s} a_i < d/2$ (second moments of
# $\xi$) and the bound $\ell \ge 1/8$ on $G_m \cup Z(z)$. `proofs/thm1.md` rebuilds them (steps
# 1, 3, 5, 6, 8, 11); here are the numbers behind each step, then the checks that prove them.
#
# **The target (step 1).** On every word $\sum_s \partial_{\alpha_s}\ell_s = 0$, so the own
# partials $g^{(s)}_s = \partial_{\alpha_s} L_s(0, \beta^{(0)})$ sum to zero over the targets and
# one of them is $\ge 0$. The proof takes that target. Its attention step then moves the other
# symbols up on average, so $\mu$, the mean of $a_i = e^{\alpha'_i - \alpha'_s}$, is at least 1.
# Below: the engine's gradients at $d = 9$ for $\beta^{(0)} = 2e_0$ (target 0 is learnable, and
# its own partial is negative, so the proof never takes it).

# %%
D3 = 9
fs3 = thm1.FloorSearch(D3)
grads3 = fs3.grads(2 * np.eye(D3)[0], list(range(D3)))
own = np.array([grads3[s][s] for s in range(D3)])
s_star = thm1.chosen_target(grads3)
print("own partials g^(s)_s:", np.round(own, 5), " sum:", f"{own.sum():.1e}")
print("chosen target:", s_star)
for eta in (1e-2, 1.0, 1e2, 1e4):
    x = np.delete(-eta * (grads3[s_star] - grads3[s_star][s_star]), s_star)
    print(f"  eta = {eta:>7g}: mu = mean a_i = {np.exp(x).mean():.6g}")

# %% [markdown]
# **Case 2 (step 5).** Given $|z| = m$ and $y = -1$, $S = \sum_t \xi_t$ has mean $m\mu \ge d$
# and variance at most $(d/2)\,m\mu$, and Cantelli's inequality gives
# $P(S \le d/4) \le 8/17$. The worst ratio vectors for this probability put two symbols just
# below $d/2$ and the rest at 0; their exact binomial probabilities sit far below $8/17$.

# %%
for dd in (9, 12, 20):
    worst, (mm, kk, lo) = thm1_step3.two_valued_worst(dd, range(dd, dd + 6))
    print(f"d = {dd:>2}: max P(S <= d/4) = {float(worst):.4f} (m = {mm}, {kk} symbols near d/2) "
          f"<= 8/17 = {8 / 17:.4f}")
slack, best = thm1_step3.second_moment_slack()
display(sp.Eq(sp.Symbol("(7/8) t^2 - (1/8) V"), slack))
display(sp.Eq(sp.Symbol("P(G_m) lower bound"), best))

# %% [markdown]
# **The loss on $\{z\} \cup Z(z)$ (step 6)** and **the case $\beta_s > d/4$ (step 10).** On
# $G_m$ every inserted word has $\gamma_s(z') \le 4/d$, so for $\beta_s \le d/4$ either the negative
# word or all its insertions lose at least 1/8. For $\beta_s > d/4$ the words made only of $s$
# lose $\tfrac12(d/4-2)^2$ each, with total probability $1/(d^2-2d+2)$: exactly $1/2080$ at $d=9$.

# %%
links, corner = thm1_step3.insertion_loss_corner()
display(sp.Eq(sp.Symbol("max f(z') - 1 on the region"), corner))
display(sp.Eq(sp.Symbol("P(w = s...s)"), thm1_steps.words_of_s_mass()))
for dd in (9, 10, 16, 100):
    v = sp.Rational(1, 2) * (sp.Rational(dd, 4) - 2) ** 2 / (dd**2 - 2 * dd + 2)
    print(f"d = {dd:>3}: (1/2)(d/4-2)^2/(d^2-2d+2) = {v} ~ {float(v):.6f} (x{float(v / C_LARGE):.3g} 1/2080)")

# %%
for cid in ("thm1.target_choice", "thm1.insertion_attention", "thm1.second_moment",
            "thm1.pointwise_loss", "thm1.large_output"):
    run_check(cid)

# %% [markdown]
# ## 4. The mass of long negative words (A.6, end)
#
# `long_negative_mass` has SymPy sum the geometric series
# $P(y = -1, |w| \ge d) = \sum_{m \ge d} P(|w| = m)\,((d-1)/d)^m$. It is equal to
# $\tfrac12(1 - 2/d)^{d-1}$. As a second route, we add up the series term by term at 60 digits,
# using exact length probabilities from the distribution module, and stop once the tail drops
# below $10^{-55}$.

# %%
mass = thm1_steps.long_negative_mass()
display(sp.Eq(sp.Symbol("P(y=-1, |w|>=d)"), mass))
display(sp.Eq(sp.Symbol("P(y=-1, |w|>=d) / (1/2 (1-2/d)^(d-1))"),
              sp.simplify(mass / (sp.Rational(1, 2) * (1 - 2 / d) ** (d - 1)))))

with mpmath.workdps(DPS + 10):
    for dd in (9, 12, 16):
        wd = WordDistribution(dd)
        r = mpmath.mpf(dd - 1) / dd  # a word of length m avoids s with probability r^m
        n_terms = int(mpmath.ceil(56 * mpmath.log(10) / -mpmath.log(1 - mpmath.mpf(2) / dd)))
        partial = mpmath.fsum(mpmath.mpf(wd.length_probability(mm).numerator)
                              / wd.length_probability(mm).denominator * r**mm
                              for mm in range(dd, dd + n_terms))
        closed = mpmath.mpf(sp.N(mass.subs(d, dd), DPS + 10))
        print(f"d = {dd:>2}: closed form {mpmath.nstr(closed, DPS)}\n"
              f"        partial sum ({n_terms} terms) differs by {mpmath.nstr(abs(closed - partial), 3)}")

# %%
run_check("thm1.long_negative_mass");

# %% [markdown]
# ## 5. The last inequality: $\tfrac1{256}(1 - 2/d)^{d-1} \ge c_3$ for $d \ge 9$
#
# Putting the steps together: $\ell \ge 1/8$ and $\min\{\rho(z), \rho(Z(z))\} \ge \rho(z)/2$
# give $\tfrac1{16}\rho(z)$ per negative word. The good words carry at least 1/8 of the long
# negative mass. So $L_s \ge \tfrac1{128}\,P(y=-1, |w| \ge d)$, which is the expression from
# section 4 divided by 128. It increases in $d$. Its minimum over $d \ge 9$ is at $d = 9$, which
# is `exact_floor_constant()` $= (7/9)^8/256 \approx 1/1912$, and its limit is $e^{-2}/256$. The
# paper's chain gives the weaker value $1/6912 = c_3$.

# %%
floor_expr = mass / 128
best = thm1_steps.exact_floor_constant()
display(sp.Eq(sp.Symbol("(1/128) P(y=-1, |w|>=d)"), sp.simplify(floor_expr)))
display(sp.Eq(sp.Symbol("exact_floor_constant()"), best))
print("the expression at d = 9 equals exact_floor_constant():", floor_expr.subs(d, 9) == best)
display(sp.Eq(sp.Symbol("limit_(d->oo)"), sp.limit(floor_expr, d, sp.oo)))

D_RANGE = list(range(9, 41)) + [50, 70, 100, 200, 500, 1000, 10**4]
floor_mp = sp.lambdify(d, floor_expr, "mpmath")
with mpmath.workdps(DPS + 10):
    vals = {dd: floor_mp(mpmath.mpf(dd)) for dd in D_RANGE}
    c3m = mpmath.mpf(C3.numerator) / C3.denominator
    increasing = all(vals[a] < vals[b] for a, b in zip(D_RANGE, D_RANGE[1:]))
    for dd in (9, 10, 12, 16, 100, 10**4):
        print(f"d = {dd:>5}: (1/256)(1-2/d)^(d-1) = {mpmath.nstr(vals[dd], DPS)}  "
              f"(x{mpmath.nstr(vals[dd] / c3m, 6)} c3)")
    print("increasing on the grid:", increasing, "; smallest ratio to c3:",
          mpmath.nstr(min(vals.values()) / c3m, 8))
assert increasing and min(vals.values()) >= c3m

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.2))
for ax in (ax1, ax2):
    ax.plot(D_RANGE, [float(vals[dd]) for dd in D_RANGE], "o-", ms=3, label=r"$\frac{1}{256}(1-2/d)^{d-1}$")
    ax.axhline(float(best), color="C1", ls="--", label=r"$(7/9)^8/256$ (its minimum, $d = 9$)")
    ax.axhline(float(sp.exp(-2) / 256), color="C2", ls=":", label=r"$e^{-2}/256$ (limit)")
    ax.set_xscale("log")
    ax.set_xlabel("d")
    ax.grid(True, which="both", alpha=0.3)
ax1.axhline(float(C3), color="k", ls="-.", label=r"$c_3 = 1/6912$")
ax1.set_ylim(0, 6e-4)
ax1.set_ylabel("lower bound on $L_s$")
ax1.set_title("the bound against $c_3$")
ax1.legend(fontsize=8, loc="center right")
ax2.set_title("zoom: increasing in d")
show(fig, "rho_bound")

# %% [markdown]
# Two checks cover this step. `thm1.rho_bound` proves the exact statement: the expression is
# increasing in $d$, so the inequality holds iff $c_3 \le (7/9)^8/256$. `thm1.chain` follows the
# paper's own chain of inequalities link by link.

# %%
run_check("thm1.rho_bound")
run_check("thm1.chain")
run_check("thm1.conclusion");

# %% [markdown]
# How much room is there? We override `thm1.c3` the same way `verify check --set` does. At
# $c_3 = 1/2000$ the exact bound still holds but the paper's chain does not reach it. At $1/1900$
# both fail, first at $d = 9$.

# %%
for value in ("1/2000", "1/1900"):
    overridden = vconst.values(vconst.with_overrides(vconst.load(), [f"thm1.c3={value}"]))
    for cid in ("thm1.rho_bound", "thm1.chain"):
        out = CHECKS[cid].judge(CHECKS[cid].cases(Profile.QUICK, overridden, {})[0], overridden)
        print(f"c3 = {value}: [{cid}] passed = {out.passed}: {out.detail}")

# %% [markdown]
# ## 6. The conclusion, measured (search evidence beside the proof)
#
# We write $F(\beta^{(0)}, \eta) = \max_s \min_\beta L_s(\alpha'_s, \beta)$. `FloorSearch` computes
# the attention gradient at $\alpha = 0$ on the float64 path (`general.evaluate_float`), caps large
# logit gaps at 25 (`thm1.compress`), and solves for the best output (`general.best_output_float`).
# The theorem claims $F \ge c_3$ for every $\beta^{(0)}$ and $\eta$.
#
# **Learnable targets.** With $\beta^{(0)} = 2e_0$ the gradient step points towards symbol 0, so
# target 0 becomes learnable for large $\eta$. Every other target keeps a high floor, and the max
# over $s$ picks one of them. A seeded random $\beta^{(0)}$ behaves the same way: one target becomes
# learnable and the others do not. The dotted line is $\min_\beta L_s(0, \beta)$, the value with no
# attention step at all.

# %%
D0 = 9
ETAS = np.logspace(-3, 6, 19)
e = np.eye(D0)
BETA0 = {"2e_0": 2 * e[0], "gauss (seed 0)": np.random.default_rng(0).normal(size=D0)}
search = thm1.FloorSearch(D0)
curves = {}
for name, beta0 in BETA0.items():
    targets = thm1.target_classes(beta0)  # one target per distinct value of beta0
    grads = search.grads(beta0, targets)
    curves[name] = [search.per_target(grads, float(eta)) for eta in ETAS]
at_zero = general.best_output_float(D0, 0, np.zeros(D0))[1]  # alpha' = 0: the same for every s

fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.2), sharey=True)
for ax, (name, rows) in zip(axes, curves.items()):
    F = [max(r.values()) for r in rows]
    low = [min(r.values()) for r in rows]
    ax.plot(ETAS, F, "o-", label=r"$F = \max_s \min_\beta L_s$")
    ax.plot(ETAS, [max(v, 1e-12) for v in low], "s--", label=r"$\min_s \min_\beta L_s$ (learnable target)")
    ax.axhline(at_zero, color="gray", ls=":", label=r"$\min_\beta L_s(0, \beta)$")
    ax.axhline(float(C3), color="k", ls="-.", label=r"$c_3 = 1/6912$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"attention step $\eta$")
    ax.set_title(rf"$d = {D0}$, $\beta^{{(0)}}$ = {name}")
    ax.grid(True, which="major", alpha=0.3)
axes[0].set_ylabel("min over outputs of $L_s$ (clipped at 1e-12)")
axes[0].legend(fontsize=8)
show(fig, "floor_vs_eta")

for name, rows in curves.items():
    F = [max(r.values()) for r in rows]
    i = int(np.argmin(F))
    last = rows[-1]
    print(f"beta0 = {name}: smallest F over eta = {F[i]:.6g} at eta = {ETAS[i]:.3g}; "
          f"at eta = {ETAS[-1]:.0e}: learnable s = {min(last, key=last.get)} "
          f"(min_beta L = {min(last.values()):.2e}), F attained at s = {max(last, key=last.get)}")
print(f"value at alpha' = 0: {at_zero:.6g}")

# %% [markdown]
# **A small seeded search.** `thm1.search_floor` tries the structured outputs
# (`thm1.structured_outputs`), one seeded Gaussian, and a short Nelder–Mead run on
# $(\beta^{(0)}, \log_{10}\eta)$. At $d = 16$ we try only the structured outputs, as the check's
# quick profile does. The values are float64. The registered check below recomputes the $d = 9$
# floor on the mpmath path with an error bound (`thm1.reevaluate`). This is **search evidence (no
# counterexample found), not a proof**: a larger search could in principle find a lower $F$.

# %%
SEARCH_D = (9, 12, 16)
found, at_zero_d = {}, {}
for dd in SEARCH_D:
    at_zero_d[dd] = general.best_output_float(dd, 0, np.zeros(dd))[1]
    full = dd <= 12
    res = thm1.search_floor(dd, seed=0, random=1 if full else 0, starts=1 if full else 0,
                            evals=12, n_eta=8, adversarial=full)
    found[dd] = res
    eff, at = res.effort, res.extra
    print(f"d = {dd:>2}: smallest F = {res.value:.10g} (x{res.value / float(C3):.0f} c3) at beta0 = "
          f"{res.family}, eta = {at['eta']:.3g}, s = {at['s']}; {eff['configs']} beta0 x "
          f"{eff['etas']} etas + {eff['starts']} Nelder-Mead runs: {eff['F_evaluations']} F-evaluations")
    print(f"        value at alpha' = 0: {at_zero_d[dd]:.10g}; "
          f"smallest single-target value seen {at['learnable']['value']:.2e} "
          f"(s = {at['learnable']['s']}, beta0 = {at['learnable']['name']})")

fig, ax = plt.subplots(figsize=(6.5, 4.2))
ax.plot(SEARCH_D, [found[dd].value for dd in SEARCH_D], "o-", label="smallest F found (seeded search)")
ax.plot(SEARCH_D, [at_zero_d[dd] for dd in SEARCH_D], "x", ms=10, color="gray",
        label=r"$\min_\beta L_s(0, \beta)$ (no attention step)")
ax.axhline(float(C_LARGE), color="C1", ls="--", label="1/2080 (sub-case, text)")
ax.axhline(float(C3), color="k", ls="-.", label=r"$c_3 = 1/6912$")
ax.set_yscale("log")
ax.set_xticks(SEARCH_D)
ax.set_xlabel("d")
ax.set_ylabel(r"$\min_{\beta^{(0)},\eta}\ \max_s \min_\beta L_s$")
ax.set_title("Search evidence (no counterexample found), not a proof")
ax.legend(fontsize=8)
ax.grid(True, which="both", alpha=0.3)
show(fig, "search_floor")

# %% [markdown]
# Every search stops at the value at $\alpha' = 0$. That happens when $\beta^{(0)}$ is constant, so
# the gradient vanishes, or when $\eta \to 0$. The floor is thousands of times $c_3$: the theorem's
# constant is very conservative. The registered check runs the same search at $d = 9$ and judges
# the recomputed floor against $c_3$.

# %%
run_check("thm1.floor", {"d": [9]});

# %% [markdown]
# ## Summary
#
# | step (proofs/thm1.md) | what it says | check | evidence |
# |---|---|---|---|
# | 1 | some target has $\partial_{\alpha_s}L_s \ge 0$; then $\mu \ge 1$ | `thm1.target_choice` | symbolic |
# | 2 | $\rho(Z(z))/\rho(z) \ge \tfrac12$, the sets disjoint | `thm1.insertion_ratio` | symbolic |
# | 3 | $\gamma_s(z') = 1/(1+S)$, $\le 4/d$ on $G_m$ | `thm1.insertion_attention` | symbolic |
# | 4 | case 1: the heaviest symbol appears w.p. $\ge 1/8$ | `thm1.appearance` | symbolic |
# | 5 | case 2: $P(S > d/4) \ge 9/17$ (Cantelli) | `thm1.second_moment` | symbolic |
# | 6 | $\ell \ge 1/8$ on $z$ or on $Z(z)$ | `thm1.pointwise_loss` | symbolic |
# | 7 | $P(y=-1, \lvert w\rvert \ge d) = \tfrac12(1-2/d)^{d-1}$ | `thm1.long_negative_mass` | symbolic |
# | 8, 11 | the sum and the conclusion | `thm1.conclusion` | symbolic |
# | 9 | $\tfrac1{256}(1-2/d)^{d-1} \ge c_3$ | `thm1.rho_bound`, `thm1.chain` | symbolic |
# | 10 | $\beta_s > d/4$: $L_s \ge 1/2080$ | `thm1.large_output` | symbolic |
# | — | $F \ge c_3$ | `thm1.floor` | search |

# %%
failed = sorted({cid for cid, out in OUTCOMES if out.passed is not True})
documented = [cid for cid in failed if cid in thm1.RESULT.discrepancies]
print("checks run:", sorted({cid for cid, _ in OUTCOMES}))
print("checks with a failing or undecided case:", failed or "none")
assert failed == documented, f"undocumented failure: {sorted(set(failed) - set(documented))}"
