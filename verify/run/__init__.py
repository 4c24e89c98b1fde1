"""Running independent tasks and keeping what they produced: the runner (a profile's cases of
the checks it is handed, grouped per result and case), the executors (serial, process pool,
Dask), the journal (one JSON line per finished case, resumable) and the outcome store (cases
shared between checks within a run).  Knows the vocabulary of :mod:`verify.checks` and
:mod:`verify.constants` and nothing of any particular result: it imports no other package of
``verify``, so the results, the branch and bound and the experiments may all use it."""
