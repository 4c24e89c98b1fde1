"""An independent checker of the certificates (proofs/checker.md): its own derivation of the
model at background-symmetric parameters, its own integrals and tail bounds, and plain Arb
interval arithmetic over each leaf.  It imports nothing of the engine that wrote the
certificates, nor SymPy: only python-flint and the standard library (tests/test_shape.py)."""
