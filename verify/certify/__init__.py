"""Certified evidence over whole boxes of (d, eps): claims as ball margins, branch and bound,
certificates and their independent recheck (python-flint needed; see verify.engine.certified)."""
