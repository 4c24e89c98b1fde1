"""The independent checker judges the leaves of Proposition 3's cube certificates over their
boxes (proofs/checker.md, section 15): the committed prop3-cube files pass `verify recheck
--independent`; a raised c2, a broken tiling and a zeroed derivative enclosure are caught; the
lower bound of inf_beta L_s at a fixed beta* is an identity, and the enclosures hold at
sampled points; the registered check asks the checker, and a planted engine fault it passes
is rejected."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import sympy as sp
from flint import arb, arb_mat, ctx

from verify.checker import cube, cube_box, recheck
from verify.certify.verdicts import Checker, Route, Sample
from verify.cli import main

CERTS = Path(__file__).resolve().parent.parent / "certificates"
CLAIM = "prop3.all_attention"


def committed(name: str) -> dict:
    return json.loads((CERTS / f"{name}.json").read_text())


def write(folder: Path, data: dict) -> str:
    path = folder / "cert.json"
    path.write_text(json.dumps(data))
    return str(path)


def judge(box: tuple, c2: float, d: int = 3) -> recheck.LeafVerdict:
    """One leaf, judged as ``cube.check`` judges it (at the checker's precision)."""
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        leaf = {"box": box, "status": "certified", "margins": {CLAIM: (1e-9, 1.0)}}
        return cube.judge_leaf(0, leaf, "prop3-cube", d, arb(c2))
    finally:
        ctx.prec = old


def test_the_committed_d3_cube_holds_by_the_independent_checker(capsys):
    assert main(["recheck", str(CERTS / "prop3-cube-d3.json"), "--independent"]) == 0
    out = capsys.readouterr().out
    assert "certificate holds (independent checker, 25 leaves" in out and "REJECTED" not in out


@pytest.mark.slow
def test_the_committed_d4_cube_holds_by_the_independent_checker(capsys):
    assert main(["recheck", str(CERTS / "prop3-cube-d4.json"), "--independent"]) == 0
    assert "certificate holds (independent checker, 225 leaves" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("name,leaves", [("prop3-sharp-d3", 37), ("prop2-cone-d3", 204)])
def test_the_committed_sharp_and_cone_hold_by_the_independent_checker(capsys, name, leaves):
    assert main(["recheck", str(CERTS / f"{name}.json"), "--independent"]) == 0
    assert f"certificate holds (independent checker, {leaves} leaves" in capsys.readouterr().out


def at_checker_precision(fn, *args):
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        return fn(*args)
    finally:
        ctx.prec = old


AT_ZERO = (1 - 2.0 ** -9, 1.0, 1 - 2.0 ** -9, 1.0)  # a sharp leaf with alpha = 0 at its corner


def sharp(box: tuple, raise_by: float = 0.0) -> recheck.LeafVerdict:
    leaf = {"box": box, "status": "certified", "margins": {"prop3.sharp": (1e-9, math.inf)}}
    bound = at_checker_precision(cube._bound, 3, None) + raise_by
    return at_checker_precision(cube.judge_leaf, 0, leaf, "prop3-sharp", 3, bound)


def test_the_sharp_leaf_at_alpha_zero_is_proved_by_the_signs_of_the_derivatives():
    found = sharp(AT_ZERO)
    assert found.problem is None and found.boxes > 1  # halved down to the corner piece


def test_a_piece_stopped_by_its_gradients_width_is_judged_again_with_finer_cells(monkeypatch):
    """Leaf 34 of prop3-sharp-d3 ([0.75, 0.875] x [0.9375, 1], beside alpha = 0): with the
    gradient at its centre on cells of 2^-7 its lower bound stays below F(0) where the
    gradient's midpoints would hold it, so the gradient is taken again on cells 4 times finer,
    and the leaf holds whole; without that second try it is halved (and still holds)."""
    leaf = cube.read(committed("prop3-sharp-d3")).leaves[34]
    bound = at_checker_precision(cube._bound, 3, None)
    assert at_checker_precision(cube.judge_leaf, 34, leaf, "prop3-sharp", 3, bound).boxes == 1
    real = cube_box.derivatives
    monkeypatch.setattr(cube_box, "derivatives",
                        lambda d, box, first=cube_box.FIRST: real(d, box, max(first, cube_box.FIRST)))
    found = at_checker_precision(cube.judge_leaf, 34, leaf, "prop3-sharp", 3, bound)
    assert found.problem is None and found.boxes > 1


def test_a_bound_above_F0_is_false_at_alpha_zero():
    found = sharp(AT_ZERO, 1e-4)
    assert found.problem and ("FALSE at the centre" in found.problem or "to F(0)" in found.problem)


def test_the_sign_test_reads_the_derivative_enclosures(monkeypatch):
    """dM and dm widened by +-0.05 (the floors' gradients are about -0.05 and -0.11 there):
    no target's floor is shown to decrease towards alpha = 0 any more."""
    corner = [(1 - 2.0 ** -10, 1.0)] * 2
    M, m = at_checker_precision(cube.moments_at, 3, [arb(1 - 2.0 ** -11)] * 2)
    assert at_checker_precision(cube_box.descends, 3, corner, M, m, cube.FINE[1])
    real = cube_box.derivatives

    def widened(*args):
        dM, dm = real(*args)
        wide = arb(0).union(arb(0.05)).union(arb(-0.05))
        return ([[[x + wide for x in row] for row in k] for k in dM],
                [[[x + wide for x in row] for row in k] for k in dm])

    monkeypatch.setattr(cube_box, "derivatives", widened)
    assert not at_checker_precision(cube_box.descends, 3, corner, M, m, cube.FINE[1])


def cone_leaf(index: int) -> dict:
    return cube.read(committed("prop2-cone-d3")).leaves[index]


def test_the_tightest_cone_leaf_holds_and_a_raised_c1_is_false_at_its_centre():
    """Leaf 69 stores [8.8e-5, 0.0100]: 0.49 proved, L_s = 0.5 at a point of the cone."""
    leaf = cone_leaf(69)
    held = at_checker_precision(cube.judge_leaf, 69, leaf, "prop2-cone", 3, arb(49) / 100)
    assert held.problem is None and held.low > 0
    found = at_checker_precision(cube.judge_leaf, 69, leaf, "prop2-cone", 3, arb(52) / 100)
    assert found.problem and "FALSE at the centre" in found.problem


def test_a_cone_leaf_of_two_positions_is_refused():
    leaf = dict(cone_leaf(69), box=(1.0, 3.0) + cone_leaf(69)["box"][2:])
    found = at_checker_precision(cube.judge_leaf, 69, leaf, "prop2-cone", 3, arb(49) / 100)
    assert found.problem and "not one target position" in found.problem


@pytest.mark.parametrize("seed", range(4))
def test_the_checkers_multipliers_are_a_dual_bound_no_worse_than_the_engines(seed):
    """Weak duality at a random point: the checker's dual bound is at most L_s at its point of
    the cone, and at least the dual bound of the engine's multipliers (scipy's nnls): the
    checker's are the best of every active set."""
    import numpy as np

    from verify.certify.cube import cone_multipliers

    rng = random.Random(seed)
    r, s = [arb(rng.uniform(0.05, 1.0)) for _ in range(2)], rng.randrange(3)
    M, m = at_checker_precision(cube.moments_at, 3, r)
    v, beta = at_checker_precision(cube.dual, M, m[s], s)
    low = at_checker_precision(cube._floor, M, [a + b for a, b in zip(m[s], v)])
    assert low.lower() <= at_checker_precision(cube._loss, M, m[s], beta).upper()
    lam, _ = cone_multipliers(np.array([[float(x.mid()) for x in row] for row in M]),
                              np.array([float(x.mid()) for x in m[s]]), s)
    theirs = [0.0] * 3
    for j, x in zip([j for j in range(3) if j != s], lam):
        theirs[j] = float(x) / 2
        theirs[s] -= float(x) / 2
    engine = at_checker_precision(cube._floor, M, [a + b for a, b in zip(m[s], theirs)])
    assert float(low.mid()) >= float(engine.mid()) - 1e-9


def test_a_forged_cone_margin_is_rejected():
    data = committed("prop2-cone-d3")
    data["leaves"] = data["leaves"][69:70]  # the tightest leaf alone (no tiling asked here)
    margins = data["leaves"][0]["margins"]["prop2.all_parameters"]
    assert cube.agreement(cube.read(data)) == []
    margins[:] = [(0.02).hex(), (0.03).hex()]  # above L_s - c1 = 0.01 at the centre
    problems = cube.agreement(cube.read(data))
    assert problems and "leaf 0" in problems[0]


def test_c2_raised_to_a_quarter_is_not_a_pass(tmp_path, capsys):
    """max_s F_s is 0.139 at r = (1, 1) (alpha = 0): c2 = 1/4 is false on the cube.  In the
    file (a note: the bound claimed implies the file's) and in the constants checked alike."""
    data = committed("prop3-cube-d3")
    data["constants"]["prop3.c2"] = "1/4"
    verdict = cube.check(recheck.read(data), corners=False)
    assert not verdict.ok and CLAIM in verdict.problems[0]
    assert main(["recheck", write(tmp_path, data), "--independent"]) == 1
    assert "REJECTED: leaf" in capsys.readouterr().out


def test_a_false_claim_is_found_false_at_a_point():
    """c2 = 0.16 on [0.5, 1]^2: max_s F_s is 0.188 at the centre but 0.139 at (1, 1)."""
    found = judge((0.5, 1.0, 0.5, 1.0), 0.16)
    assert found.problem and "FALSE at the centre" in found.problem


@pytest.mark.parametrize("side", [(0.0, 0.375), (0.125, 0.375)])  # enlarged, shifted
def test_a_leaf_enlarged_or_shifted_breaks_the_tiling(side):
    """Leaf 0 is r2 in [0, 0.25]: enlarged it overlaps leaf 1, shifted it also leaves a gap;
    either way no leaf is judged."""
    data = committed("prop3-cube-d3")
    data["leaves"][0]["box"][:2] = [x.hex() for x in side]
    verdict = cube.check(recheck.read(data), corners=False)
    assert not verdict.ok and verdict.boxes == 0
    assert "leaves 0 and 1 overlap" in verdict.problems


def _zeroed(real):
    """``real`` (derivatives: lists by k; hessians: dicts by (k, l)) with every entry 0."""
    def zero(d, *rest):
        return tuple({c: [[arb(0)] * d for _ in range(d)] for c in D} if isinstance(D, dict)
                     else [[[arb(0)] * d for _ in range(d)] for _ in D] for D in real(d, *rest))
    return zero


def test_the_gradient_and_hessian_terms_are_load_bearing(monkeypatch):
    """With the gradient at the centre and the Hessians over the box set to 0 (the value at the
    centre alone) a false claim (c2 = 0.16 on [0.5, 1]^2) passes; the real enclosures refuse
    it.  (With the Hessians alone set to 0 the -(d/2p)|g|^2 term hides the fault from the
    floors at d = 3; the test below catches it in the Taylor form itself.)"""
    assert judge((0.5, 1.0, 0.5, 1.0), 0.16).problem
    for name in ("derivatives", "hessians"):
        monkeypatch.setattr(cube_box, name, _zeroed(getattr(cube_box, name)))
    assert judge((0.5, 1.0, 0.5, 1.0), 0.16).problem is None  # unsound: the fault passes


def taylor_holds(sides: list[tuple[float, float]]) -> bool:
    """L_s(beta) - 1 and g = M beta - 2 m_s at seeded points r of the box (beta fixed: the
    centre's minimiser) lie in their second-order forms of ``cube_box.taylor`` (d = 3)."""
    rng = random.Random(3)
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        centre = [arb((a + b) / 2) for a, b in sides]
        M, m = cube.moments_at(3, centre)
        grad = cube_box.derivatives(3, centre)
        hess = cube_box.hessians(3, cube_box.centred(sides)[0])
        for s in range(3):
            y = arb_mat(M).solve(arb_mat([[x] for x in m[s]]))
            beta = [2 * arb(y[i, 0].mid()) for i in range(3)]
            value, g = cube_box.taylor(sides, M, m[s], s, beta, grad, hess)
            for _ in range(8):
                Mr, mr = cube.moments_at(3, [arb(rng.uniform(a, b)) for a, b in sides])
                gr = [sum((Mr[i][j] * beta[j] for j in range(3)), -2 * mr[s][i]) for i in range(3)]
                if not (value.contains(cube_box.quadratic(Mr, mr[s], beta))
                        and all(a.contains(b) for a, b in zip(g, gr))):
                    return False
        return True
    finally:
        ctx.prec = old


def test_the_taylor_form_holds_and_needs_its_hessian_term(monkeypatch):
    sides = [(0.0, 0.5), (0.5, 1.0)]
    assert taylor_holds(sides)
    monkeypatch.setattr(cube_box, "hessians", _zeroed(cube_box.hessians))
    assert not taylor_holds(sides)


def test_inf_beta_at_a_fixed_beta_star_is_an_identity():
    """inf_beta L = L(beta*) - 1/2 g' M^-1 g, g = M beta* - 2 m, L = 1/2 b'Mb - 2 b'm + 1, for
    any symmetric invertible M and any beta* (symbolic, 3 x 3)."""
    a = sp.symbols("a0:6")
    M = sp.Matrix([[a[0], a[1], a[2]], [a[1], a[3], a[4]], [a[2], a[4], a[5]]])
    m = sp.Matrix(sp.symbols("m0:3"))
    b = sp.Matrix(sp.symbols("b0:3"))
    L = (b.T * M * b / 2 - 2 * b.T * m)[0] + 1
    g = M * b - 2 * m
    inf = 1 - 2 * (m.T * M.inv() * m)[0]
    assert sp.simplify(L - (g.T * M.inv() * g)[0] / 2 - inf) == 0


def test_M_is_at_least_p_over_d_times_the_identity():
    """The words of length 1: M - (p/d) I is positive semi-definite at sampled points."""
    import numpy as np

    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        for d, r in [(3, (0.2, 0.9)), (3, (1.0, 1.0)), (4, (0.5, 0.3, 0.8))]:
            M, _ = cube.moments_at(d, [arb(x) for x in r])
            A = np.array([[float(x.mid()) for x in row] for row in M]) - np.eye(d) / (d * (d - 1))
            assert np.linalg.eigvalsh(A).min() > 0
    finally:
        ctx.prec = old


def differences_inside(sides: list[tuple[float, float]]) -> bool:
    """Central differences of ``moments_at`` at six seeded points of the box lie in the
    derivative enclosures over it (d = 3; h = 10^-4, whose error is far below their widths)."""
    rng, h = random.Random(7), 1e-4
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        dM, dm = cube_box.derivatives(3, [arb(a).union(arb(b)) for a, b in sides])
        for _ in range(6):
            r = [rng.uniform(a + h, b - h) for a, b in sides]
            for k in range(2):
                up, down = list(r), list(r)
                up[k] += h
                down[k] -= h
                (M1, m1), (M0, m0) = (cube.moments_at(3, [arb(x) for x in p]) for p in (up, down))
                if not all(dM[k][i][j].contains((M1[i][j] - M0[i][j]).mid() / (2 * h))
                           and dm[k][i][j].contains((m1[i][j] - m0[i][j]).mid() / (2 * h))
                           for i in range(3) for j in range(3)):
                    return False
        return True
    finally:
        ctx.prec = old


def second_differences_inside(sides: list[tuple[float, float]]) -> bool:
    """Second central differences of ``moments_at`` (d^2/dr_k^2 and d^2/dr_k dr_l, h = 10^-3)
    at four seeded points of the box lie in the Hessian enclosures over it (d = 3)."""
    rng, h = random.Random(5), 1e-3
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        HM, Hm = cube_box.hessians(3, [arb(a).union(arb(b)) for a, b in sides], cube_box.SECOND)

        def at(r, k, a, l, b):
            p = list(r)
            p[k] += a
            p[l] += b
            return cube.moments_at(3, [arb(x) for x in p])

        for _ in range(4):
            r = [rng.uniform(a + h, b - h) for a, b in sides]
            for k, l in HM:
                corners = [at(r, k, a * h, l, b * h) for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
                for X, H in ((0, HM[k, l]), (1, Hm[k, l])):
                    if not all(H[i][j].contains(((corners[0][X][i][j] - corners[1][X][i][j]
                                                  - corners[2][X][i][j] + corners[3][X][i][j])
                                                 / (4 * h * h)).mid())
                               for i in range(3) for j in range(3)):
                        return False
        return True
    finally:
        ctx.prec = old


@pytest.mark.parametrize("sides", [[(0.75, 1.0), (0.75, 1.0)], [(0.0, 0.25), (0.5, 0.75)]])
def test_the_enclosures_hold_at_sampled_points(sides):
    """The derivative and Hessian enclosures hold the central differences, and the lower bound
    of every F_s lies below its value, at seeded points of the box."""
    assert differences_inside(sides) and second_differences_inside(sides)
    rng = random.Random(7)
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        centre = [arb((a + b) / 2) for a, b in sides]
        low = cube_box.floors_over(3, sides, *cube.moments_at(3, centre), None,
                                   cube_box.derivatives(3, centre),
                                   cube_box.hessians(3, cube_box.centred(sides)[0]))
        for _ in range(3):
            r = [arb(rng.uniform(a, b)) for a, b in sides]
            assert all(f.upper() >= lo.lower() for f, lo in zip(cube.floors_at(3, r), low))
    finally:
        ctx.prec = old


def test_a_piece_judged_with_the_hessians_over_the_box_it_was_cut_from_stays_below():
    """Hessian enclosures over a box hold over every box inside it, so a piece may use its
    parent's (judge_leaf tries them before computing its own): the lower bounds then still lie
    below F_s at seeded points of the piece."""
    parent, rng = [(0.0, 0.25), (0.5, 0.75)], random.Random(11)
    old, ctx.prec = ctx.prec, recheck.BITS
    try:
        above = cube_box.hessians(3, cube_box.centred(parent)[0])
        for piece in cube._halves(parent):
            centre = [arb((a + b) / 2) for a, b in piece]
            low = cube_box.floors_over(3, piece, *cube.moments_at(3, centre), None,
                                       cube_box.derivatives(3, centre), above)
            r = [arb(rng.uniform(a, b)) for a, b in piece]
            assert all(f.upper() >= lo.lower() for f, lo in zip(cube.floors_at(3, r), low))
    finally:
        ctx.prec = old


def test_the_pieces_try_their_parents_hessians_first():
    """A leaf that needs splits computes fewer Hessian enclosures than it judges pieces (the
    parents' serve first), and still refuses a false claim (c2 = 0.16 on [0.5, 1]^2)."""
    real, calls = cube_box.hessians, []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cube_box, "hessians", lambda *a: calls.append(a) or real(*a))
        found = judge((0.5, 1.0, 0.0, 0.5), 0.21)
    assert found.problem is None and found.boxes > 1 and len(calls) < found.boxes
    assert judge((0.5, 1.0, 0.5, 1.0), 0.16).problem


def _shrunk(real, factor: float):
    """``real`` (derivatives or hessians) with every radius times ``factor``."""
    def shrunk(*args):
        return tuple([[[arb(x.mid(), x.rad() * factor) for x in row] for row in A] for A in D]
                     if isinstance(D, list) else
                     {c: [[arb(x.mid(), x.rad() * factor) for x in row] for row in A]
                      for c, A in D.items()} for D in real(*args))
    return shrunk


def test_derivative_enclosures_of_half_their_width_miss_a_difference(monkeypatch):
    """The fault of a derivative enclosure at half its radius: the sampled central differences
    leave it on [0, 0.25] x [0.5, 0.75] (the real ones hold them, the test above)."""
    monkeypatch.setattr(cube_box, "derivatives", _shrunk(cube_box.derivatives, 0.5))
    assert not differences_inside([(0.0, 0.25), (0.5, 0.75)])


def test_hessian_enclosures_of_a_quarter_their_width_miss_a_difference(monkeypatch):
    """The same fault planted in the Hessians, at a quarter of their radius (at half, the
    second differences still fall inside: the Hessians' enclosures are the looser, and their
    term is second order in the box's width)."""
    monkeypatch.setattr(cube_box, "hessians", _shrunk(cube_box.hessians, 0.25))
    assert not second_differences_inside([(0.0, 0.25), (0.5, 0.75)])


@pytest.mark.parametrize("fault", ["cross", "chain"])
def test_a_dropped_term_of_the_second_order_rules_misses_a_difference(monkeypatch, fault):
    """The product rule without its cross terms u_k v_l + u_l v_k, or the power's chain rule
    without f'' u_k u_l: the second differences leave the Hessians."""
    real_mul, real_inv = cube_box.Jet.__mul__, cube_box.Jet.inv

    def mul(self, o):
        out = real_mul(self, o)
        if isinstance(o, cube_box.Jet):
            out.H = [[a * o.v + self.v * b for a, b in zip(r, s)] for r, s in zip(self.H, o.H)]
        return out

    def inv(self, n):
        out = real_inv(self, n)
        dy = -(n / self.v.upper() ** (n + 1)).union(n / self.v.lower() ** (n + 1))
        out.H = [[dy * a for a in r] for r in self.H]
        return out

    monkeypatch.setattr(cube_box.Jet, "__mul__", mul) if fault == "cross" else \
        monkeypatch.setattr(cube_box.Jet, "inv", inv)
    assert not second_differences_inside([(0.0, 0.25), (0.5, 0.75)])


def _bits(x: arb) -> tuple:
    return x.mid().man_exp(), x.rad().man_exp()


def _padded(w: cube_box.Dual, h: int, n: int) -> cube_box.Dual:
    """A weight of stratum h with its partials in r_2 .. r_h put back, as exact zeros."""
    g = [arb(0)] * h + w.g
    if not isinstance(w, cube_box.Jet):
        return cube_box.Dual(w.v, g)
    return cube_box.Jet(w.v, g, [[arb(0)] * (n - k) for k in range(h)] + w.H)


@pytest.mark.parametrize("d", [3, 4])
@pytest.mark.parametrize("second", [False, True])
def test_the_sums_over_all_cells_at_once_are_the_cell_by_cell_riemann_sums_bit_for_bit(second, d):
    """``_sums`` forms the integrands of every cell in one pass (``cube_box.Cells``) and carries
    on stratum h only the partials in r_k, k >= h; each of its entries is, midpoint and radius,
    the Riemann sum of section 15 formed one cell's ball at a time with every partial (the
    route before: the integrands at one ball t, their partials in r_2 .. r_h as exact zeros,
    accumulated cell by cell, the strata in order), plus the tail.  Red when a cell operation
    swaps its operands, the sum changes its order or a stratum's offset is wrong."""
    first, sides = 2.0 ** -3, [(0.5, 0.5625), (0.25, 0.3125), (0.7, 0.7625)][:d - 1]
    box = [arb(a).union(arb(b)) for a, b in sides] if second else [arb(a) for a, _ in sides]
    dM, dm = cube_box._sums(d, box, first, second)
    comps = [(k, l) for k in range(d - 1) for l in range(k, d - 1)] if second else [(k,) for k in range(d - 1)]
    part = (lambda f, c: f.H[c[0]][c[1] - c[0]]) if second else (lambda f, c: f.g[c[0]])
    M = {c: [[arb(0)] * d for _ in range(d)] for c in comps}
    m = {c: [[arb(0)] * d for _ in range(d)] for c in comps}
    weights = [{j: _padded(w, h, d - 1) for j, w in cube_box._weights(d, h, box, second).items()}
               for h in range(d)]
    for t, dt in cube_box._cells(first):
        for h in range(d):
            sec, mean, without = cube_box._integrands(d, h, weights[h], t)
            for c in comps:
                for (i, j), f in sec.items():
                    M[c][i][j] += dt * part(f, c)
                for s in range(h, d):
                    for i, f in mean.items():
                        m[c][s][i] += dt * (part(f, c) - (part(without[s, i], c) if (s, i) in without else 0))
    e = cube_box.tail(d, second)
    for c in comps:
        for i in range(d):
            for j in range(d):  # the lower triangle copies the upper one, its tail included
                M[c][i][j] = M[c][min(i, j)][max(i, j)] + (e if j >= i else 0)
                assert _bits(dM[c][i][j]) == _bits(M[c][i][j])
                assert _bits(dm[c][i][j]) == _bits(m[c][i][j] + e)


def test_a_root_off_the_cube_is_rejected_before_any_leaf():
    """--any-box lets a file claim its own root; the model lives on [0, 1]^(d-1) only."""
    data = committed("prop3-cube-d3")
    box = [(0.75).hex(), (1.25).hex(), (0.75).hex(), (1.0).hex()]
    data["root"], data["leaves"] = box, [{**data["leaves"][6], "box": box}]
    verdict = cube.check(recheck.read(data), corners=False)
    assert not verdict.ok and verdict.boxes == 0 and "leaves the cube" in verdict.problems[0]


def _cube_check(d: int, profile):
    from verify.results import prop3

    check = next(c for c in prop3.RESULT.checks if c.id == "prop3.all_attention")
    return check, check.cases(profile, {}, {"d": [d]})[0]


def test_the_default_profile_lets_the_checker_decide_and_the_engine_sample():
    """prop3.all_attention on the default profile: the checker, in its own process, judges every
    leaf of the committed certificate, the engine a seeded sample; the ledger's fact is
    "accepted" and the detail holds no timing.  The quick profile does not ask (engine only)."""
    from fractions import Fraction

    from verify.checks import Profile
    from verify.report.proof_ledger import CHECKER_ACCEPTED

    check, case = _cube_check(3, Profile.DEFAULT)
    assert case.params["checker"] and case.params["engine_sample"]
    out = check.judge(case, {"prop3.c2": Fraction(1, 10)})
    assert out.passed is True and out.values["checker"] == CHECKER_ACCEPTED
    assert out.values["route"] == Route.CHECKER_DECIDES and out.values["sample"] == Sample.AGREES
    assert " s)" not in out.detail  # no timing: the same bytes on any machine
    assert "a seeded sample of 2 of the 25 leaves and agrees" in out.detail  # and the tightest
    assert _cube_check(4, Profile.DEFAULT)[1].params["checker"] is True
    assert _cube_check(3, Profile.QUICK)[1].params["checker"] is False


def _trusted(folder: Path, data: dict):
    from fractions import Fraction

    from verify.certify import cube_certificate
    from verify.checks import Profile

    (folder / "prop3-cube-d3.json").write_text(json.dumps(data))
    _, case = _cube_check(3, Profile.DEFAULT)
    return cube_certificate.cube_outcome("prop3-cube-d3", case, {"prop3.c2": Fraction(1, 10)}, 400,
                                         folder)


def test_a_forged_margin_is_rejected_on_the_default_route(tmp_path):
    """The committed file with one leaf's stored enclosure raised far above its value: the
    checker, which decides on the default profile, rejects it and the check fails."""
    data = committed("prop3-cube-d3")
    data["leaves"][6]["margins"][CLAIM] = [float(0.5).hex(), float(0.6).hex()]
    out = _trusted(tmp_path, data)
    assert out.passed is False and out.values["checker"] == Checker.REJECTED
    assert "sample" not in out.values  # the engine was not asked


def test_the_engine_sample_is_load_bearing_on_the_default_route(tmp_path, monkeypatch):
    """An engine whose judge no longer certifies anything: the checker still accepts the file,
    but the sampled leaves fail their recheck, so the check fails."""
    from verify.certify import cube_certificate

    real = cube_certificate.judge  # what the engine's recheck of a leaf calls
    monkeypatch.setattr(cube_certificate, "judge", lambda problem, box, constants: type(
        real(problem, box, constants))("undecided", (-math.inf, math.inf), None, 0))
    out = _trusted(tmp_path, committed("prop3-cube-d3"))
    assert out.passed is False and out.values["sample"] == Sample.DISAGREES


def test_an_engine_that_reads_a_lowered_constant_is_caught_by_the_checker(monkeypatch):
    """A fault planted in the engine's judge (it measures every box against c2 - 0.06) makes
    the engine certify c2 = 0.15, above F(0) = 0.1393 at d = 3, so false near alpha = 0: the
    engine's branch and bound passes it, the checker's process rejects it and the check fails."""
    from fractions import Fraction

    from verify.certify import cube as engine_cube
    from verify.checks import Profile

    real = engine_cube.judge
    monkeypatch.setattr(engine_cube, "judge", lambda problem, box, constants: real(
        problem, box, {k: v - Fraction(6, 100) for k, v in constants.items()}))
    check, case = _cube_check(3, Profile.DEFAULT)
    out = check.judge(case, {"prop3.c2": Fraction(15, 100)})
    assert out.passed is False and out.values["checker"] == Checker.REJECTED
    engine_only = type(case)(case.label, {**case.params, "checker": False})
    assert check.judge(engine_only, {"prop3.c2": Fraction(15, 100)}).passed is True  # load-bearing


@pytest.mark.slow
@pytest.mark.parametrize("module,check_id,constants", [
    ("prop3", "prop3.sharp", {"prop3.c2": "1/10"}),
    ("prop2", "prop2.all_parameters", {"prop2.c1": "1/5"})])
def test_the_sharp_and_cone_checks_ask_the_checker_on_the_default_profile(module, check_id,
                                                                          constants):
    """The committed prop3-sharp-d3 and prop2-cone-d3 on the default profile: the checker
    judges every leaf in its own process, the engine a seeded sample.  The cone's file proves
    c1 = 49/100, above the configured 1/5: its own constant is the one its leaves are read with."""
    import importlib
    from fractions import Fraction

    from verify.checks import Profile
    from verify.report.proof_ledger import CHECKER_ACCEPTED

    result = importlib.import_module(f"verify.results.{module}").RESULT
    check = next(c for c in result.checks if c.id == check_id)
    case = check.cases(Profile.DEFAULT, {}, {"d": [3]})[0]
    assert case.params["checker"] and case.params["engine_sample"]
    out = check.judge(case, {k: Fraction(v) for k, v in constants.items()})
    assert out.passed is True and out.values["checker"] == CHECKER_ACCEPTED, out.detail
    assert out.values["route"] == Route.CHECKER_DECIDES
    if module == "prop2":
        assert 0.49 <= out.values["proved_bound"] < 0.5
    assert check.cases(Profile.QUICK, {}, {"d": [3]})[0].params.get("checker") is False


@pytest.mark.slow
def test_an_engine_that_reads_a_lowered_c1_is_caught_by_the_checker(monkeypatch):
    """A fault planted in the engine's judge (every box measured against c1 - 0.05) makes the
    engine certify c1 = 0.52, false (L_s = 1/2 at beta~ = 1 for every alpha); on the full
    profile the engine's run passes it and the checker's process rejects it."""
    from fractions import Fraction

    from verify.certify import cube as engine_cube
    from verify.checks import Profile
    from verify.results import prop2

    real = engine_cube.judge
    monkeypatch.setattr(engine_cube, "judge", lambda problem, box, constants: real(
        problem, box, {k: v - Fraction(5, 100) for k, v in constants.items()}))
    check = next(c for c in prop2.RESULT.checks if c.id == "prop2.all_parameters")
    case = check.cases(Profile.FULL, {}, {"d": [3]})[0]
    out = check.judge(case, {"prop2.c1": Fraction(52, 100)})
    assert out.passed is False and out.values["checker"] == Checker.REJECTED and "FALSE" in out.detail
    engine_only = type(case)(case.label, {**case.params, "checker": False})
    assert check.judge(engine_only, {"prop2.c1": Fraction(52, 100)}).passed is True  # load-bearing


@pytest.mark.parametrize("margins,where", [
    ((0.02, math.inf), "not a finite"), ((math.inf, math.inf), "not a finite"),
    ((8e-5, 0.01), None)])
def test_only_the_sharp_leaf_at_alpha_zero_may_store_an_infinite_end(margins, where):
    """A cone leaf with hi = inf (which would skip the comparison with the checker's values)
    is refused by the judge and by `agreement`; its true margins pass both."""
    data = committed("prop2-cone-d3")
    data["leaves"] = data["leaves"][69:70]
    data["leaves"][0]["margins"]["prop2.all_parameters"] = [float(x).hex() for x in margins]
    cert = cube.read(data)
    if where is None:
        assert cube.agreement(cert) == []
        return
    assert cube.agreement(cert) and "not finite" in cube.agreement(cert)[0]
    found = at_checker_precision(cube.judge_leaf, 0, cert.leaves[0], "prop2-cone", 3, arb(49) / 100)
    assert found.problem and where in found.problem


@pytest.mark.parametrize("s", [-1.0, 3.0])
def test_a_cone_target_outside_the_symbols_is_refused(s):
    leaf = dict(cone_leaf(69), box=(s, s + 1) + cone_leaf(69)["box"][2:])
    found = at_checker_precision(cube.judge_leaf, 69, leaf, "prop2-cone", 3, arb(49) / 100)
    assert found.problem and "not one target position" in found.problem
