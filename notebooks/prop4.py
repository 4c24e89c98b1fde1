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
# # Proposition 4 (a few heads with fixed attention), step by step
#
# **Claim (reconstructed, see `proofs/prop4.md`).** For $d \ge 3$, $H \le \kappa\sqrt d$ heads
# ($\kappa$ = `prop4.head_factor`) with arbitrary fixed attention $\alpha^{(1)}, \dots, \alpha^{(H)}$
# and an output matrix $B \in \mathbb{R}^{H \times d}$ with $\lVert B\rVert_F \le R = d^{1/4}$, some
# target $s$ has $\inf_{\lVert B\rVert_F \le R} L_s \ge c_4$.
#
# What the paper's text gives: the statement's shape, the radius $d^{1/4}$, $H = O(\sqrt d)$ and
# the first step of A.5 (the low-attention lemma, its own notebook `lemma_low_attention.py`). The
# rest of A.5, $c_4$ and the constant in $O(\sqrt d)$ are lost; the configured values in
# `proofs/constants.toml` are fractions of floors *measured* by searches. Section 6 proves the
# rest of A.5 for every $d$, but only under a smaller head bound ($H \le \sqrt d/20$). Everything
# below is computed live by `verify.results.prop4` and the float64 path of `verify.engine.general`.
#
# Run time: about 40–60 s on two cores.

# %%
import math

import matplotlib.pyplot as plt
import mpmath
import numpy as np

from verify import constants as vconst
from verify.report import notebook
from verify.checks import Profile
from verify.engine import general
from verify.results import lemma_low_attention, prop4

CONSTANTS = vconst.values(vconst.load())  # proofs/constants.toml, as exact fractions
show = notebook.figure_saver("prop4")  # displays; saves a PNG when the tests ask

C4 = float(prop4.constant(CONSTANTS, "prop4.c4"))
for key in prop4.RESULT.constants:
    print(f"{key} = {CONSTANTS[key]}")
for d in (4, 9, 16):
    print(f"d = {d:>2}: R = {prop4.radius(d, CONSTANTS):.4f}, head counts checked: "
          f"{prop4.head_counts(d, CONSTANTS)}")

# %% [markdown]
# ## 1. How a floor is computed
#
# For fixed attention the loss is a convex quadratic in $b = \mathrm{vec}(B)$ with Hessian
# $Q = \mathbb{E}[\Gamma\Gamma^\top]$ ($\Gamma$ stacks the $H$ attention vectors) and linear term
# $-2 b^\top m_s$, $m_s = \mathbb{E}[\Gamma\,1\{y_s = +1\}]$. `prop4.head_system` builds $Q$ (cross-head
# blocks by a 2-D quadrature) and every $m_s$; `prop4.trust_region` minimises over the ball
# $\lVert b\rVert \le R$ for all $d$ targets at once. We check the KKT conditions at one
# attention: $d = 9$, $H = 3$, head $h$ raising the symbols $i \equiv h \pmod 3$ by 30 (the worst
# attention the searches find at $H = \sqrt d$).

# %%
D, H = 9, 3
R = prop4.radius(D, CONSTANTS)
name, x_groups = next(c for c in prop4.structured_heads(D, H, levels=(30.0,)) if "group" in c[0])
Q, P = prop4.head_system(D, H, x_groups)
Bmat, mu, vals = prop4.trust_region(Q, 2.0 * P, R)
floors = 1.0 + vals
s = int(np.argmax(floors))
kkt = np.abs((Q + mu[s] * np.eye(H * D)) @ Bmat[:, s] - 2.0 * P[:, s]).max()
print(f"attention: {name}")
print(f"floors per target: {np.round(floors, 8)}")
print(f"target s = {s}: mu = {mu[s]:.6g} > 0, ||b|| = {np.linalg.norm(Bmat[:, s]):.12f} = R = {R:.12f}, "
      f"|(Q + mu) b - 2 m_s|_max = {kkt:.1e}")
print(f"smallest eigenvalues of Q: {np.round(np.linalg.eigvalsh(Q)[:4], 10)} "
      f"(H - 1 = {H - 1} null directions: each head's attention sums to 1)")
assert mu[s] > 0 and kkt < 1e-10

# %% [markdown]
# A second, independent route to the same number: draw seeded words from the paper's
# distribution, run the $H$ heads with the output $B^\ast$ just found and average the squared
# loss for target $s$ (`verify.engine.model`). The Monte Carlo mean should sit within a few
# standard errors of the quadrature floor.

# %%
from verify.engine.distribution import WordDistribution
from verify.engine.model import predict_heads, squared_loss

words = WordDistribution(D).sample_counts(np.random.default_rng(1), 100_000)
labels = np.where(words[:, s] >= 1, 1.0, -1.0)
mc = squared_loss(predict_heads(words, x_groups.reshape(H, D), Bmat[:, s].reshape(H, D)), labels)
se = mc.std(ddof=1) / math.sqrt(len(mc))
print(f"Monte Carlo loss at B*: {mc.mean():.5f} +- {se:.5f} (1 s.e., 100,000 words); "
      f"quadrature floor {floors[s]:.5f}: {abs(mc.mean() - floors[s]) / se:.2f} s.e. apart")
assert abs(mc.mean() - floors[s]) <= 5 * se

# %% [markdown]
# The constraint is active. How much does the radius matter at this attention? The same $Q$ and
# $m_s$ with the radius scaled by a factor (one trust-region solve per radius):

# %%
SCALES = np.geomspace(0.25, 64, 17)
by_radius = [float((1.0 + prop4.trust_region(Q, 2.0 * P, k * R)[2]).max()) for k in SCALES]
# no norm bound: least squares at the engine's default steps (an independent route)
free = general.best_output_heads_float(D, s, x_groups.reshape(H, D))[1]
print(f"floor at R = d^(1/4): {floors.max():.6f}; at R = 64 d^(1/4): {by_radius[-1]:.6f}; "
      f"with no norm bound (general.best_output_heads_float): {free:.6f}")

fig, ax = plt.subplots(figsize=(6.5, 4.2))
ax.plot(SCALES * R, by_radius, "o-", label=f"{name}")
ax.axvline(R, color="gray", ls=":", label=r"$R = d^{1/4}$")
ax.axhline(free, color="C0", ls="--", lw=1, label="no norm bound")
ax.axhline(C4, color="k", ls="--", label="$c_4$")
ax.set_xscale("log")
ax.set_xlabel(r"radius $R$ of the ball $\|B\|_F \leq R$")
ax.set_ylabel(r"$\max_s \inf_{\|B\|_F \leq R} L_s$")
ax.set_title(f"d = {D}, H = {H}: the floor against the radius")
ax.legend(fontsize=8)
ax.grid(True, alpha=0.3)
show(fig, "radius")

# %% [markdown]
# At this attention most of the floor survives without any norm bound: even unbounded output
# weights leave a loss of about $0.144$ (measured). The bound matters for other attention
# (section 5).
#
# ## 2. Step 1: the low-attention lemma picks a target
#
# A.5 starts from the lemma: some $s$ has $\sum_h \mathbb{E}[(\gamma_s^{(h)})^2] \le H/d$
# (`lemma_low_attention.head_sums_float`). For the group attention every target is alike; for
# seeded random attention we print the lemma's target next to the target with the largest floor
# (measured, not a claim of the paper).

# %%
sums = lemma_low_attention.head_sums_float(D, H, x_groups)
print(f"groups: sum_h E[gamma_s^2] = {sums.min():.6f} for every s (spread {np.ptp(sums):.1e}) <= H/d = {H / D:.6f}")
rng = np.random.default_rng(0)
same = 0
for k in range(5):
    x = rng.normal(size=H * D) * 2.0
    sums = lemma_low_attention.head_sums_float(D, H, x)
    fl = prop4.floors(D, H, x, R)
    print(f"random {k}: lemma target {int(sums.argmin())} (sum {sums.min():.4f} <= {H / D:.4f}), "
          f"floor there {fl[sums.argmin()]:.4f}; largest floor {fl.max():.4f} at s = {int(fl.argmax())}")
    same += int(sums.argmin() == fl.argmax())
print(f"the lemma's target has the largest floor in {same} of 5 draws")

# %% [markdown]
# ## 3. Step 2 is lost
#
# How A.5 turns the lemma, $\lVert B\rVert_F \le d^{1/4}$ and $H = O(\sqrt d)$ into a constant
# floor is missing from the text. `proofs/prop4.md` records a heuristic only: a head that
# spreads its attention over a group of $k = d/H$ symbols needs an output weight of order $2k$ on
# $s$, far more than the radius $d^{1/4}$ allows when $H \lesssim \sqrt d$.
#
# ## 4. Steps 3–4: the conclusion, searched (search evidence, not a proof)
#
# The registered check `prop4.floor` searches over attention (structured heads, random logits,
# descents when the budget allows) and re-evaluates the worst attention at finer quadrature
# steps with an error bound (mpmath for $H = 1$). Here on $d = 4$ with the quick budget; the
# case $d = 4$, $H = 2 = \sqrt d$ is the smallest floor measured in `proofs/prop4.md`.

# %%
check = next(c for c in prop4.RESULT.checks if c.id == "prop4.floor")
outcomes = [check.judge(case, CONSTANTS) for case in check.cases(Profile.QUICK, CONSTANTS, {"d": [4]})]
for out in outcomes:
    verdict = {True: "PASS", False: "FAIL", None: "undecided"}[out.passed]
    print(f"[{check.id}] {out.case} | {out.evidence.value} | {verdict} | margin {out.margin:.4g} ({out.margin_kind})")
    print(f"    {out.detail}")
assert all(out.passed for out in outcomes)

# %% [markdown]
# Floors against the number of heads, beyond the configured bound $H \le \kappa\sqrt d$ as well.
# For each $(d, H)$ we take the smallest floor over the structured candidates of
# `prop4.structured_heads` at level 30: all of them at $d = 4$; at $d = 9$ only the group and
# one-logit-per-head candidates, to keep the run short (when we ran all six at $d = 9$ the
# others never came lowest). This is a small structured search: **search evidence (no
# counterexample found), not a proof**.

# %%
KEEP_9 = ("group", "symbol")
worst = {}
for dd in (4, 9):
    Rd = prop4.radius(dd, CONSTANTS)
    for HH in range(1, 2 * math.isqrt(dd) + 1):
        cands = prop4.structured_heads(dd, HH, levels=(30.0,))
        if dd == 9:
            cands = [c for c in cands if any(w in c[0] for w in KEEP_9)]
        vals = {nm: float(prop4.floors(dd, HH, xx, Rd).max()) for nm, xx in cands}
        best = min(vals, key=vals.get)
        worst[dd, HH] = (vals[best], best)
        print(f"d = {dd}, H = {HH} (H/sqrt d = {HH / math.sqrt(dd):.2f}): smallest floor {vals[best]:.5f} ({best})")

cap = float(prop4.constant(CONSTANTS, "prop4.head_factor"))
fig, ax = plt.subplots(figsize=(6.5, 4.5))
for dd, marker in ((4, "o-"), (9, "s-")):
    pts = sorted((HH / math.sqrt(dd), v) for (d_, HH), (v, _) in worst.items() if d_ == dd)
    ax.plot(*zip(*pts), marker, label=f"d = {dd}")
ax.axhline(C4, color="k", ls="--", label=f"configured $c_4$ = {CONSTANTS['prop4.c4']}")
ax.axvline(cap, color="gray", ls=":", label=f"head bound H = {CONSTANTS['prop4.head_factor']}" + r"$\sqrt{d}$")
ax.set_xlabel(r"$H/\sqrt{d}$")
ax.set_ylabel(r"smallest floor found ($R = d^{1/4}$)")
ax.set_ylim(0, 0.55)
ax.set_title("Proposition 4: structured search (search evidence)")
ax.legend()
ax.grid(True, alpha=0.3)
show(fig, "floors_vs_heads")

within = [v for (dd, HH), (v, _) in worst.items() if HH <= cap * math.sqrt(dd) + 1e-12]
print(f"smallest floor with H <= {cap:g} sqrt(d): {min(within):.5f} (c4 = {C4:g})")
assert min(within) >= C4

# %% [markdown]
# Within the head bound every floor found is above $c_4$; past it the floor drops fast
# (about $0.02$ at $d = 4$, $H = 4$). That is why `prop4.head_factor` is configured as 1.
#
# ## 5. Step 5: past the hypotheses
#
# With $H = d$ heads, head $h$ nearly one-hot on symbol $h$ and $B = 2$ on head $s$'s own
# symbol, the model is $2\cdot 1\{s \in w\} - 1 = y$ exactly in the limit: the floor goes to 0
# once $R \ge 2$ (here down to about $10^{-8}$, the float64 path's resolution). At $d = 4$ the
# text's radius is $\sqrt 2 < 2$, which keeps a small floor.

# %%
D5 = 4
for L in (5.0, 10.0, 20.0):
    x1 = np.concatenate([np.where(np.arange(D5) == h, L, 0.0) for h in range(D5)])
    print(f"H = d = 4, head h raises symbol h by {L:g}: floor with R = 2: "
          f"{prop4.floors(D5, D5, x1, 2.0).max():.2e}; with R = d^(1/4): "
          f"{prop4.floors(D5, D5, x1, prop4.radius(D5, CONSTANTS)).max():.5f}")

# %% [markdown]
# A configured $c_4 = 0.6$ fails (the mutation test of `proofs/prop4.md`): already the
# single-head floor at $d = 4$ is about $0.40$.

# %%
mutated = vconst.values(vconst.with_overrides(vconst.load(), ["prop4.c4=0.6"]))
case = check.cases(Profile.QUICK, mutated, {"d": [4]})[0]  # H = 1: mpmath-confirmed
out = check.judge(case, mutated)
print(f"c4 = 0.6, {out.case}: passed = {out.passed}")
assert out.passed is False

# %% [markdown]
# ## 6. Every $d$ under a smaller head bound (the rest of A.5 reconstructed)
#
# Take the lemma's target ($\sum_h \mathbb{E}[(\gamma_s^{(h)})^2] \le H/d$). Inserting $s$'s into
# a word moves the prediction by at most $\sqrt{2}R\,(\sum_h \gamma_s^{(h)2})^{1/2}$
# (Cauchy-Schwarz over the heads), and Proposition 2's grouping of the words by background then
# gives $\inf_B L_s \ge (\sqrt{B(d)} - \sqrt\kappa)^2 \ge (\sqrt{1/3} - \sqrt\kappa)^2$ with
# $\kappa = R^2 H/d$ (`proofs/prop4.md`, steps Q1-Q6). The inequality before the lemma holds
# for every target and every output, so we can look at it on the engine's moments: two random
# heads at $d = 5$, every target, outputs of three norms, $\theta = 1/2$.

# %%
from verify.results import prop2_every_d, prop4_every_d

rng = np.random.default_rng(5)
heads, D6, THETA = rng.normal(0, 2, (2, 5)), 5, 0.5
floor = float(prop2_every_d.bound_at(D6))
for s in range(D6):
    MM, mpos, _ = general.head_moments_float(D6, s, heads)
    on_s = MM[s, s] + MM[D6 + s, D6 + s]
    for scale in (0.3, 1.0):
        b = rng.normal(0, 1, 2 * D6)
        b *= scale / np.linalg.norm(b)
        loss = 0.5 * b @ MM @ b - 2 * b @ mpos + 1
        bound = (1 - THETA) * floor - (1 / THETA - 1) * scale ** 2 * on_s
        print(f"s = {s}, ||B|| = {scale}: L_s = {loss:.4f} >= {bound:.4f}")
        assert loss >= bound

# %% [markdown]
# What the argument proves: the floor $(\sqrt{1/3} - \sqrt\kappa)^2$ against $\kappa$, the
# configured $c_4$ and the largest $\kappa$ it allows. At the configured head bound
# ($\kappa = 1$ for $H = \sqrt d$) it proves nothing; `prop4.head_factor_every_d` = 1/20 is what
# it carries, so a head is admissible only from $d = 400$ on.

# %%
kappas = np.linspace(0, 1 / 3, 100)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(kappas, (math.sqrt(1 / 3) - np.sqrt(kappas)) ** 2, label="proved floor")
ax.axhline(C4, ls="--", c="C3", label=f"c4 = {C4}")
ax.axvline(prop4_every_d.largest_factor(CONSTANTS["prop4.c4"]), ls=":", c="k", label="largest kappa for c4")
ax.set_xlabel("kappa = R^2 H / d")
ax.set_ylabel("inf_B L_s >=")
ax.legend(fontsize=8)
show(fig, "every_d")
(every,) = notebook.run_check(prop4.RESULT, "prop4.every_d", CONSTANTS)
print(every.detail)
assert every.passed is True
