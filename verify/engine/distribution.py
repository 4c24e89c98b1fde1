"""The word distribution rho of Section 2 and the label chi_s.

Under rho a word w = (w_1, ..., w_m) has length m ~ Geometric(p), P(m = k) = p q^(k-1) for k >= 1,
with p = 1/(d-1) and q = 1 - p (so the two classes are balanced), and its symbols are i.i.d.
uniform on the alphabet.  For d = 2, p = 1: every word has length 1.

Indexing convention: the paper's alphabet is {1, ..., d}; in code the symbols are 0-based,
{0, ..., d-1}, and so is the target symbol s.  Symbol i of the paper is index i - 1 here.

The models are permutation invariant, so a word matters only through its count vector
C(w) in N^d (C_i = number of positions holding symbol i).  Given m, C(w) is multinomial with m
trials and uniform cell probabilities 1/d, which is how `WordDistribution.sample_counts` draws
words of any length in O(d) time.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["WordDistribution", "labels"]


@dataclass(frozen=True)
class WordDistribution:
    """The word distribution rho over the alphabet {0, ..., d-1} (0-based; the paper's {1, ..., d}).

    Lengths are Geometric(p) on {1, 2, ...} with p = 1/(d-1), symbols i.i.d. uniform.
    """

    d: int

    def __post_init__(self) -> None:
        if isinstance(self.d, bool) or not isinstance(self.d, numbers.Integral) or self.d < 2:
            raise ValueError("d must be an integer >= 2")
        object.__setattr__(self, "d", int(self.d))

    @property
    def p(self) -> Fraction:
        """Success probability of the length law: p = 1/(d-1) (p = 1 for d = 2)."""
        return Fraction(1, self.d - 1)

    @property
    def q(self) -> Fraction:
        """q = 1 - p; P(m > L) = q^L."""
        return 1 - self.p

    # ----------------------------------------------------------------- sampling

    def sample_lengths(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw `size` word lengths m ~ Geometric(p), support {1, 2, ...}, no cap (int64)."""
        size = _check_size(size)
        if self.d == 2:
            return np.ones(size, dtype=np.int64)
        return rng.geometric(float(self.p), size=size).astype(np.int64, copy=False)

    def sample_words(self, rng: np.random.Generator, size: int) -> list[np.ndarray]:
        """Draw `size` words from rho, each an int64 array of 0-based symbols (uniform)."""
        lengths = self.sample_lengths(rng, size)
        if lengths.size == 0:
            return []
        symbols = rng.integers(0, self.d, size=int(lengths.sum()), dtype=np.int64)
        return np.split(symbols, np.cumsum(lengths)[:-1])

    def sample_counts(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw the count vectors C(w) of `size` words from rho, shape (size, d), int64.

        Given the length m, C(w) ~ Multinomial(m; 1/d, ..., 1/d), so each word costs O(d)
        whatever its length.
        """
        lengths = self.sample_lengths(rng, size)
        pvals = np.full(self.d, 1.0 / self.d)
        return rng.multinomial(lengths, pvals, size=lengths.shape[0]).astype(np.int64, copy=False)

    def sample_symbol_counts(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Draw the count vectors of `size` words from rho by drawing every symbol and counting
        them, shape (size, d), int64.

        The same law as :meth:`sample_counts` (given m, m i.i.d. uniform symbols counted are
        Multinomial(m; 1/d, ..., 1/d)) from a different use of the generator: one uniform
        integer per symbol instead of d - 1 binomials per word.  The cost is the words' total
        length, d - 1 per word on average: 3 (d = 10) to 7 (d = 200) times less than the
        multinomial in blocks of 256 words (benchmarks/bench_sampling.py).
        """
        size = _check_size(size)
        lengths = self.sample_lengths(rng, size)
        symbols = rng.integers(0, self.d, size=int(lengths.sum()), dtype=np.int64)
        rows = np.repeat(np.arange(size, dtype=np.int64), lengths)
        flat = np.bincount(rows * self.d + symbols, minlength=size * self.d)
        return flat.astype(np.int64, copy=False).reshape(size, self.d)

    # ------------------------------------------------------------ exact masses

    def length_probability(self, m: int) -> Fraction:
        """P(|w| = m) = p q^(m-1) for m >= 1, exactly."""
        m = operator.index(m)
        if m < 1:
            raise ValueError("word length must be >= 1")
        return self.p * self.q ** (m - 1)

    def word_probability(self, word: Sequence[int]) -> Fraction:
        """rho(w) = p q^(m-1) / d^m for a word of m >= 1 symbols in {0, ..., d-1}, exactly."""
        symbols = [operator.index(a) for a in word]
        if not symbols:
            raise ValueError("a word has length >= 1")
        if any(a < 0 or a >= self.d for a in symbols):
            raise ValueError(f"symbols must lie in {{0, ..., {self.d - 1}}}")
        m = len(symbols)
        return self.length_probability(m) / Fraction(self.d) ** m

    def counts_probability(self, counts: Sequence[int]) -> Fraction:
        """P(C(w) = counts) = p q^(m-1) * multinomial(m; counts) / d^m, m = sum(counts) >= 1."""
        cs = [operator.index(c) for c in counts]
        if len(cs) != self.d:
            raise ValueError(f"counts must have length d = {self.d}")
        if any(c < 0 for c in cs):
            raise ValueError("counts must be non-negative")
        m = sum(cs)
        if m < 1:
            raise ValueError("counts must sum to a word length >= 1")
        return self.length_probability(m) * _multinomial(cs) / Fraction(self.d) ** m


def labels(counts: np.ndarray, s: int) -> np.ndarray:
    """The label chi_s: +1.0 where symbol s occurs (counts[..., s] >= 1), else -1.0 (float64)."""
    counts = np.asarray(counts)
    s = operator.index(s)
    if counts.ndim < 1 or not 0 <= s < counts.shape[-1]:
        raise ValueError("s must index the last axis of counts (0-based symbols)")
    return np.where(counts[..., s] >= 1, 1.0, -1.0)


def _multinomial(counts: Sequence[int]) -> int:
    """m! / prod_i counts_i!  with m = sum(counts)."""
    result, total = 1, 0
    for c in counts:
        total += c
        result *= math.comb(total, c)
    return result


def _check_size(size: int) -> int:
    size = operator.index(size)
    if size < 0:
        raise ValueError("size must be >= 0")
    return size
