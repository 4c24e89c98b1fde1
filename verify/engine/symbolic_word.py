"""Model (1) and the word law on one word, with every symbol written out (SymPy).

The four-scalar reduction (:mod:`.symbolic`) starts from background-symmetric parameters; the
symmetry lemma of A.7 is what licenses that start, so it must be argued from the model as the
paper defines it, with no symmetry assumed.  Here a word is a list of named symbols, each with
its count C_l, logit alpha_l and output weight beta_l (a :class:`Letter`), and everything else
about the word — the symbols not named — enters only through sums that the argument never
looks inside (their count, their softmax numerator and denominator, their multinomial factor).
So an identity SymPy proves here holds for every d and every word.

* :func:`word_output` — f(w) = sum_l beta_l C_l e^{alpha_l} / sum_l C_l e^{alpha_l} - 1
  (the paper's (1)); :func:`word_loss` — 1/2 (f - y)^2.
* :func:`word_law` — P(C(w) = C) = p q^(m-1) d^(-m) m! / prod_l C_l! (Section 2: a Geometric
  length, i.i.d. uniform symbols), with p = 1/(d - 1).
* :func:`count_pgf` — E[prod_l x_l^{C_l}] = G((x_1 + ... + x_d)/d) (proofs/model.md, section 2).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import sympy as sp

from .symbolic import d, p_of_d, pgf


@dataclass(frozen=True)
class Letter:
    """One named symbol of the alphabet on a word: its count, logit and output weight."""

    count: sp.Expr
    alpha: sp.Expr
    beta: sp.Expr


@dataclass(frozen=True)
class Rest:
    """The symbols not named, through the only sums the model and the law read: their total
    count, their softmax numerator sum beta_l C_l e^{alpha_l} and denominator sum C_l e^{alpha_l},
    and prod_l C_l! (non-negative symbols standing for any values)."""

    count: sp.Expr = sp.Integer(0)
    numerator: sp.Expr = sp.Integer(0)
    denominator: sp.Expr = sp.Integer(0)
    factorials: sp.Expr = sp.Integer(1)


def word_output(letters: Sequence[Letter], rest: Rest = Rest()) -> sp.Expr:
    """Model (1) on the word: attention gamma_l = C_l e^{alpha_l} / sum C e^{alpha}, f = sum
    beta_l gamma_l - 1 (fixed bias -1)."""
    num = sum((x.beta * x.count * sp.exp(x.alpha) for x in letters), rest.numerator)
    den = sum((x.count * sp.exp(x.alpha) for x in letters), rest.denominator)
    return num / den - 1


def word_loss(letters: Sequence[Letter], label: int, rest: Rest = Rest()) -> sp.Expr:
    """The squared loss 1/2 (f - y)^2 of the word against its label y = +-1."""
    return sp.Rational(1, 2) * (word_output(letters, rest) - label) ** 2


def word_law(letters: Sequence[Letter], rest: Rest = Rest(), dd: sp.Expr = d) -> sp.Expr:
    """P(C(w) = C): the length m = sum C_l is Geometric(p), p = 1/(d - 1), and given m the counts
    are multinomial with cells 1/d: p q^(m-1) d^(-m) m! / prod_l C_l!."""
    p = p_of_d(dd)
    m = sum((x.count for x in letters), rest.count)
    denominator = rest.factorials
    for x in letters:
        denominator *= sp.factorial(x.count)
    return p * (1 - p) ** (m - 1) * dd ** (-m) * sp.factorial(m) / denominator


def count_pgf(xs: Sequence[sp.Expr], others: sp.Expr = sp.Integer(0), dd: sp.Expr = d) -> sp.Expr:
    """E[prod_l x_l^{C_l}] = G(z), z = (sum of the x_l of every symbol)/d; ``others`` is the sum
    of the x_l of the symbols not named."""
    return pgf((sum(xs, sp.Integer(0)) + others) / dd, dd)
