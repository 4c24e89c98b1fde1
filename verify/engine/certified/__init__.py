"""Certified mode: the engine's symmetric kernels on Arb balls (python-flint).

Every number here is a ball ``mid +- rad`` that contains the true value: rounding, the
quadrature's truncation (``acb.integral`` bounds it rigorously) and the integral's tail beyond the
cut (proofs/tail-bound.md) are all inside the radius.  The integrand and the loss polynomials are
the mpmath engine's own (:func:`verify.engine.expectations.moment_integrand`,
:func:`verify.engine.symbolic.form_source`), run on another number type.

Modules: :mod:`.balls` (precision; the context :data:`verify.engine.context.ARB`),
:mod:`.moments` and :mod:`.symmetric` (the four-scalar engine), :mod:`.general` (the general
engine's kernels on balls: moments and loss at any attention), :mod:`.gauss` (Gauss-Legendre with
a rigorous error bound for vector integrands, 1-D and 2-D), :mod:`.heads` (cross-head blocks),
:mod:`.floors` (min over the output weights: solve, dual bound), :mod:`.one_step` (Theorem 1's
floor at one point), :mod:`.dual` (first-order duals over balls: the centred form over a box),
:mod:`.jets` (Taylor jets over a box), :mod:`.ratios` and :mod:`.ratio_floors` (the cube of
successive ratios of Propositions 2 and 3: stratified moments and their floors).

python-flint is a required dependency (pyproject.toml): there is no fallback without it.
"""
