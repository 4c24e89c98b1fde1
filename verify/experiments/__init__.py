"""Section 5 of the paper: six tasks, seven training plans, Table 1 and Figure 3.

Knows the tasks, the models (numpy, hand-written gradients, vectorised over samples) and the
training plans; nothing of the paper's claims about them (those are checks in
``verify/results/experiments.py``).  Entry point: ``verify experiments`` (:mod:`.grid`).
"""
