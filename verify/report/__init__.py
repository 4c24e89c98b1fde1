"""Presentation of a run: the terminal summary, REPORT.md and the JSON report from the runner's
outcomes (``tables``), the provenance block every report ends with, and the helpers the proof
notebooks share.  Computes no mathematics; may import :mod:`verify.run`,
:mod:`verify.regression`, :mod:`verify.checks` and :mod:`verify.constants`."""
