"""The claim groups of the branch and bound, as one registry of plain data: each group's axes,
claims, first d, the constants its claims read, the claim whose exact value decides a failing
box, and the claims that are lower bounds only.  A leaf module: it imports nothing of the
package, and every other module of verify/certify reads the groups from here.

Groups over (ln d, ln eps): ``prop1``, ``thm2`` and ``cor1`` (Theorem 2 and Corollary 1 at
eta1 = eta1_scale sqrt(d) and eta2 at its minimum).  Over (ln d, ln eps, u, v): ``thm2-4d`` and
``cor1-4d``, every step size the statements allow (proofs/hypothesis-range.md); over (ln d, tau,
u, v), tau = 1/(1 - ln eps): ``thm2-4d-tail`` and ``cor1-4d-tail``, every eps in (0, 1e-6].
"""
from __future__ import annotations

from dataclasses import dataclass

AXES_2D = ("ln d", "ln eps")
AXES_4D = ("ln d", "ln eps", "u", "v")
AXES_TAIL = ("ln d", "tau", "u", "v")
THM2 = ("thm2.final", "thm2.contraction", "thm2.initial_distance", "thm2.optimum", "thm2.delta")
COR1 = ("cor1.population",)
PLAN_READS = {"thm2": ("thm2.C", "thm2.eta1_scale", "thm2.T_factor"),
              "cor1": ("cor1.C", "thm2.eta1_scale", "cor1.T_numerator")}
# lower bounds only (every T >= T_low; L* <= L(alpha', 2 e_s)): below 0 they never make a box
# failing by themselves
ONE_SIDED_4D = frozenset({"thm2.final", "cor1.population", "thm2.optimum"})


@dataclass(frozen=True)
class Group:
    name: str
    axes: tuple[str, ...]
    claims: tuple[str, ...]
    d_min: int  # the claims start at this d (a box reaching below is cut there)
    reads: tuple[str, ...]  # the constants its claims read
    final: str | None = None  # the claim an exact value at a point can refute (4-D groups)
    one_sided: frozenset = frozenset()  # claims whose margins are lower bounds only

    @property
    def prefix(self) -> str:
        """The result the group's claims belong to: prop1, thm2 or cor1."""
        return self.name.split("-")[0]

    @property
    def tail(self) -> bool:
        """Whether the second axis is tau = 1/(1 - ln eps) (the eps tails)."""
        return self.axes[1] == "tau"


def _plan(name: str, axes: tuple[str, ...]) -> Group:
    prefix = name.split("-")[0]
    claims = THM2 if prefix == "thm2" else COR1
    return Group(name, axes, claims, 3, PLAN_READS[prefix],
                 final="thm2.final" if prefix == "thm2" else "cor1.population",
                 one_sided=ONE_SIDED_4D)


GROUPS: dict[str, Group] = {
    "prop1": Group("prop1", AXES_2D, ("prop1.bound",), 2, ("prop1.attention_constant",)),
    "thm2": Group("thm2", AXES_2D, THM2, 3, PLAN_READS["thm2"]),
    "cor1": Group("cor1", AXES_2D, COR1, 3, PLAN_READS["cor1"]),
    **{name: _plan(name, axes) for name, axes in (("thm2-4d", AXES_4D), ("cor1-4d", AXES_4D),
                                                    ("thm2-4d-tail", AXES_TAIL),
                                                    ("cor1-4d-tail", AXES_TAIL))},
}
TAIL, TAIL_COR1 = "thm2-4d-tail", "cor1-4d-tail"
