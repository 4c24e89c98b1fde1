"""Regression when a constant changes: which checks read which constants (the recorded
dependency map), how far a constant can move before a reading check fails (slack), and what
changed between two JSON reports (diff).  Imports :mod:`verify.checks`, :mod:`verify.constants`
and nothing above them; the command line runs the checks it selects."""
