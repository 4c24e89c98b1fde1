"""Section 5 of the paper: six tasks, seven training plans, Table 1 and Figure 3.

Knows the tasks, the models (numpy, hand-written gradients, vectorised over samples) and the
training plans; nothing of the paper's claims about them (those are checks in
``verify/results/experiments.py``).  Entry point: ``verify experiments`` (:mod:`.grid`).
"""

# the names the command line's parser needs, importable without numpy (`verify --help`)
TASK_NAMES = ("occurrence", "or", "and", "even_pairs", "icl_bigram", "slr")  # run.TASKS' keys (tested)
PLANS = ("joint", "A", "O", "A1-O", "O1-A1-O", "O1-A1-O-zero", "O1-A1")  # the training plans (plans.py)
