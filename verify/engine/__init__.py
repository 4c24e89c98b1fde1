"""Numerical engine of the verifier: the word distribution rho (Section 2), the models (1) and (2),
and the routes that compute population expectations under rho."""
