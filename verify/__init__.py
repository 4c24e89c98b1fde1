"""Verifier for Han & Ghoshdastidar, *Training Dynamics of Transformers on Unbounded Inputs*.

Layout: :mod:`verify.engine` computes (word distribution, model, symbolic reduction, exact
population expectations) and knows nothing of the paper's claims; :mod:`verify.cli` presents.
"""
from ._version import __version__

__all__ = ["__version__"]
