"""The levels Section 5's claims are judged at, in one place that the experiments' scripts and the
claims' checks (``verify/results/experiments.py``) both import, so that nothing under
``verify/experiments`` imports ``verify/results`` (ARCHITECTURE.md: every arrow points down).

* ``TARGET``: the test accuracy joint GD is claimed to reach ("learns"; ours: 0.99);
* ``DELTA``: the indifference half-width in accuracy (ours: one test error in 64, the quick
  profile's test set, costs 0.016);
* ``LEVEL``: the one-sided level of every test (5%);
* ``DIVERGED``: a training loss above it (or non-finite) marks a run as diverged: it is counted
  and shown apart, never averaged.
"""
TARGET = 0.99
DELTA = 0.02
LEVEL = 0.05
DIVERGED = 1e6
