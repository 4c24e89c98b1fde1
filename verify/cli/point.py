"""``verify eval`` and ``verify plan``: the population loss at one background-symmetric point,
and Theorem 2's three-phase plan, on the exact population loss.

One JSON shape for ``eval`` with and without ``--certified`` (docs/json-schema.json): the
loss under ``"loss"`` and the four per-coordinate partials under ``"grad"``, each value a
decimal string (with its quadrature error estimate under ``"error"``) or, certified, a ball
``{"mid", "rad"}`` whose radius is rigorous.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

from . import args as cli_args
from .io import console, load_constants, provenance_of

GRAD_KEYS = ("alpha_s", "alpha_j", "beta_s", "beta_j")  # as verify.engine.symbolic.GRAD_KEYS


def _decimal(x, digits: int) -> str:
    import mpmath

    return mpmath.nstr(x, digits, strip_zeros=False)


def _numeric_eval(args: argparse.Namespace) -> dict:
    from ..engine.symmetric import SymmetricPoint, evaluate

    ev = evaluate(SymmetricPoint(args.d, args.alpha_s, args.alpha_j, args.beta_s, args.beta_j), args.dps)
    return {
        "evidence": "numeric",
        "moments": "gamma" if ev.family == "mu" else "1 - gamma",
        "loss": _decimal(ev.loss, args.dps),
        "grad": {key: _decimal(ev.grad[key], args.dps) for key in GRAD_KEYS},
        "error": {"kind": "estimate (from the quadrature's error estimates of the moments)",
                  "loss": _decimal(ev.error["loss"], 3),
                  **{key: _decimal(ev.error[key], 3) for key in GRAD_KEYS}},
    }


def _certified_eval(args: argparse.Namespace) -> dict:
    from flint import arb

    from ..engine.certified.balls import bits_for, precision
    from ..engine.certified.symmetric import ball_evaluate, ball_state

    bits = bits_for(args.dps)
    with precision(bits):
        gap = arb(args.alpha_s) - arb(args.alpha_j)
        bs, bj = arb(args.beta_s), arb(args.beta_j)
    balls = ball_evaluate(ball_state(args.d, gap, bits), bs, bj)
    out = {}
    with precision(bits + 64):
        for key, ball in balls.items():
            mid = ball.mid().str(args.dps, radius=False)
            # the printed midpoint is rounded: its distance to the ball's centre joins the
            # radius, and the radius is printed rounded up (x 1.01 before 3 digits)
            rad = (ball.rad() + abs(ball.mid() - arb(mid))) * arb("1.01")
            out[key] = {"mid": mid, "rad": rad.upper().str(3, radius=False)}
    return {"evidence": "certified", "bits": bits, "loss": out["loss"],
            "grad": {key: out[key] for key in GRAD_KEYS}}


def cmd_eval(args: argparse.Namespace) -> int:
    cli_args.check_outputs(args, ("json",))
    body = _certified_eval(args) if args.certified else _numeric_eval(args)
    if args.json:
        doc = {"command": "eval", "d": args.d, "dps": args.dps, **body,
               "provenance": provenance_of(args)}
        cli_args.write_text(args.json, json.dumps(doc, indent=2), "--json")
        if args.json == cli_args.STDOUT:
            return 0
    from rich.table import Table

    certified = body["evidence"] == "certified"
    title = (f"Population loss and gradient, d = {args.d}: Arb enclosures ({body.get('bits')} bits)"
             if certified else f"Population loss and gradient, d = {args.d}, {args.dps} digits "
                               f"(moments of {body['moments']})")
    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value" if not certified else "midpoint", justify="right", overflow="fold")
    table.add_column("radius (rigorous)" if certified else "error estimate (quadrature)", justify="right")
    rows = [("L_s", "loss", body["loss"])] + [
        (f"dL/d{key}" + (" (one coordinate)" if key.endswith("_j") else ""), key, body["grad"][key])
        for key in GRAD_KEYS]
    for label, key, value in rows:
        if certified:
            table.add_row(label, value["mid"], value["rad"])
        else:
            table.add_row(label, value, body["error"][key])
    console().print(table)
    return 0


def _hypothesis_warnings(d: int, eps: float, eta1, eta2, eta3, T: int, minimum: tuple) -> list[str]:
    """Where the plan's inputs leave Theorem 2's hypotheses (d >= 3, 0 < eta1 <= sqrt(d),
    eta2 >= C d^2/eta1 ln(d/eps), eta3 = 1, T >= T_factor d ln(16d/eps)): the plan still runs,
    the theorem says nothing there."""
    import mpmath

    e1_max, e2_min, T_min = minimum
    out = []
    if d < 3:
        out.append(f"d = {d} is outside Theorem 2's hypotheses (d >= 3)")
    if not 0 < mpmath.mpf(eta1) <= e1_max:
        out.append(f"eta1 = {mpmath.nstr(mpmath.mpf(eta1), 6)} is outside (0, sqrt(d)] = (0, {mpmath.nstr(e1_max, 6)}]")
    if mpmath.isfinite(e2_min) and mpmath.mpf(eta2) < e2_min * (1 - mpmath.mpf(10) ** (8 - mpmath.mp.dps)):
        # (not its own rounding; with eta1 <= 0 the minimum is undefined, said above)
        out.append(f"eta2 = {mpmath.nstr(mpmath.mpf(eta2), 6)} is below the hypothesis' minimum "
                   f"C d^2/eta1 ln(d/eps) = {mpmath.nstr(e2_min, 6)}")
    if mpmath.mpf(eta3) != 1:
        out.append(f"eta3 = {mpmath.nstr(mpmath.mpf(eta3), 6)}: the theorem (as reconstructed) takes eta3 = 1")
    if T < T_min:
        out.append(f"T = {T} is below the hypothesis' T >= {T_min}")
    return out


def cmd_plan(args: argparse.Namespace) -> int:
    cli_args.check_outputs(args, ("json",))
    import mpmath

    from .. import constants as constants_mod
    from ..engine import schedules
    from ..engine.plans import three_phase
    from ..engine.precision import to_mpf
    from ..results.plan_schedule import schedule

    consts = constants_mod.values(load_constants(args))
    eta1, eta2, eta3, T = schedule(args.d, args.eps, consts)
    chosen = (args.eta1 if args.eta1 is not None else eta1, args.eta2 if args.eta2 is not None else None,
              args.eta3 if args.eta3 is not None else eta3, args.T if args.T is not None else T)
    with mpmath.workdps(args.dps + 10):
        e1 = mpmath.mpf(chosen[0])
        e2_min = schedules.eta2(args.d, mpmath.mpf(args.eps), to_mpf(consts["thm2.C"]), e1,
                                mpmath.log) if e1 > 0 else mpmath.inf
        e2 = mpmath.mpf(args.eta2) if args.eta2 is not None else (e2_min if e1 > 0 else eta2)
        warnings = _hypothesis_warnings(args.d, args.eps, chosen[0], e2, chosen[2], chosen[3],
                                        (mpmath.sqrt(args.d), e2_min, T))
    for line in warnings:
        print(f"verify: warning: {line}", file=sys.stderr)
    plan = three_phase(args.d, chosen[0], e2, chosen[2], chosen[3], args.dps)
    digits = args.dps
    pair = lambda v, a, b: {a: _decimal(v[0], digits), b: _decimal(v[1], digits)}  # noqa: E731
    out = {
        "command": "plan", "d": args.d, "eps": args.eps, "T": plan.T,
        "eta1": _decimal(plan.eta1, digits), "eta2": _decimal(plan.eta2, digits),
        "eta3": _decimal(plan.eta3, digits),
        "beta1": pair(plan.beta1, "beta_s", "beta_j"),
        "alpha": pair(plan.alpha, "alpha_s", "alpha_j"),
        "beta3": pair(plan.beta3, "beta_s", "beta_j"),
        "loss": _decimal(plan.loss, digits),
    }
    if args.json:
        cli_args.write_text(args.json, json.dumps({**out, "provenance": provenance_of(args)}, indent=2), "--json")
        if args.json == cli_args.STDOUT:
            return 0
    from rich.table import Table

    table = Table(title=f"Three-phase plan, d = {args.d}, eps = {args.eps:g}, T = {plan.T}")
    table.add_column("quantity")
    table.add_column("value", justify="right", overflow="fold")
    for key in ("eta1", "eta2", "eta3"):
        table.add_row(key, out[key])
    for phase in ("beta1", "alpha", "beta3"):
        for key, val in out[phase].items():
            table.add_row(f"{phase}.{key}", val)
    table.add_row("L_s(alpha', beta'')", out["loss"])
    console().print(table)
    return 0


def add_parsers(sub, command: Callable) -> None:
    """Register eval and plan."""
    ev = command(sub, "eval", "the population loss and its gradient at a background-symmetric "
                 "point, to the digits asked for (or as Arb balls with --certified)",
                 "verify eval --d 3 --alpha-s 1.5 --alpha-j -0.5 --beta-s 1.2 --beta-j 0.3 --dps 30")
    ev.add_argument("--d", type=cli_args.dimension, required=True, help="alphabet size (>= 2)")
    for name in ("alpha-s", "alpha-j", "beta-s", "beta-j"):
        ev.add_argument(f"--{name}", type=cli_args.number, default="0",
                        help=f"{name.replace('-', '_')} (a real number, read at the working precision; default 0)")
    ev.add_argument("--dps", type=cli_args.precision, default=30,
                    help=f"decimal digits, 5 to {cli_args.MAX_DPS} (default 30)")
    cli_args.add_json(ev, "the loss and gradient")
    ev.add_argument("--certified", action="store_true",
                    help="Arb ball enclosures (midpoint and rigorous radius)")
    ev.set_defaults(handler=cmd_eval)

    pl = command(sub, "plan", "run Theorem 2's three-phase training plan on the exact population "
                 "loss (warns when the inputs leave the theorem's hypotheses)",
                 "verify plan three-phase --d 10 --eps 0.01")
    pl.add_argument("plan", choices=["three-phase"], help="the plan to run")
    pl.add_argument("--d", type=cli_args.dimension, required=True, help="alphabet size (>= 2; the theorem needs >= 3)")
    pl.add_argument("--eps", type=cli_args.unit_interval, required=True, help="target risk in (0, 1)")
    pl.add_argument("--eta1", type=cli_args.number, help="Phase-1 step (default: eta1_scale sqrt(d))")
    pl.add_argument("--eta2", type=cli_args.number, help="Phase-2 step (default: the minimum C d^2/eta1 ln(d/eps))")
    pl.add_argument("--eta3", type=cli_args.number, help="Phase-3 step (default: 1)")
    pl.add_argument("--T", type=cli_args.steps, help="Phase-3 steps (default: ceil(T_factor d ln(16d/eps)))")
    pl.add_argument("--dps", type=cli_args.precision, default=30,
                    help=f"decimal digits, 5 to {cli_args.MAX_DPS} (default 30)")
    cli_args.add_constants(pl)
    cli_args.add_json(pl, "every phase's output")
    pl.set_defaults(handler=cmd_plan)
