"""Where the runner's tasks run: in this process, in a local process pool, or on a Dask cluster.

Every executor offers one operation, ``completed(fn, tasks)``: ``fn`` applied to each task, the
answers yielded in the order they finish (so that the caller can journal each at once and a slow
task never holds the others back).  The caller keeps the journal; an executor holds no state of
the run, so a run stopped with its client resumes from the journal on any executor.

* ``serial``  -- one task after another in this process (``--workers 1``);
* ``process`` -- a local :class:`~concurrent.futures.ProcessPoolExecutor` (the default);
* ``dask``    -- a ``dask.distributed`` scheduler: an existing one (``--scheduler ADDRESS``) or a
  ``LocalCluster`` of ``--workers`` single-threaded processes started for the run
  (``--cluster local``).  Dask reschedules the tasks of a worker that dies.  Needs the optional
  extra ``cluster`` (``pip install -e '.[cluster]'``).
"""
from __future__ import annotations

import os
import socket
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CONNECT_TIMEOUT = 5.0  # seconds to reach a scheduler before giving up with one line
CLUSTER_HINT = "pip install -e '.[cluster]' (or pip install distributed)"


class ExecutorError(Exception):
    """The executor cannot be used (optional extra missing, scheduler unreachable)."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Executor:
    """Run tasks and yield their answers as they finish; a context manager that releases its
    workers on exit."""

    name = "executor"

    def completed(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (nothing to release by default)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Serial(Executor):
    name = "serial"

    def completed(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        return map(fn, tasks)


class Process(Executor):
    """A local process pool per call of ``completed``, or (``keep``) one started at the first
    call and kept until ``close``: a caller that calls it many times, as the branch and bound
    does once per chunk of boxes, then pays the workers' start and warm-up once.  Unfinished
    tasks of a call are cancelled when the caller stops reading (an error, Ctrl-C)."""

    name = "process"

    def __init__(self, workers: int, keep: bool = False) -> None:
        self.workers = workers
        self.keep = keep
        self.pool: ProcessPoolExecutor | None = None

    def completed(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        pool = self.pool or ProcessPoolExecutor(max_workers=self.workers)
        if self.keep:
            self.pool = pool
        futures = [pool.submit(fn, task) for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()
            if not self.keep:
                pool.shutdown(cancel_futures=True)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutorError(f"running on Dask needs the optional extra 'cluster': {CLUSTER_HINT}") from None
    return distributed


def _reachable(address: str, timeout: float) -> None:
    """Fail in one line, within ``timeout``, when nothing listens at the scheduler's address."""
    from distributed.comm import get_address_host_port

    try:
        host, port = get_address_host_port(address)
    except ValueError as exc:
        raise ExecutorError(f"--scheduler: not a scheduler address: {address!r} ({exc})") from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ExecutorError(f"--scheduler: cannot reach a Dask scheduler at {address} within "
                            f"{timeout:g} s ({exc.strerror or exc})") from None


def _client(distributed, address: str, timeout: float):
    """A client of the scheduler at ``address``, or one line within ``timeout`` (plus a second):
    a listener that accepts but never answers would hold ``Client`` up for ever, so it is
    built in a daemon thread that is abandoned when it overruns."""
    box: dict[str, object] = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(address, timeout=timeout, set_as_default=False)
        except Exception as exc:  # anything answering that is not a scheduler
            box["error"] = exc

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(timeout + 1)
    if "client" not in box:
        reason = " ".join(str(box.get("error") or "no answer").split())  # one line
        raise ExecutorError(f"--scheduler: no Dask scheduler answered at {address} within "
                            f"{timeout:g} s ({reason})")
    return box["client"]


class Dask(Executor):
    """Tasks submitted to a Dask scheduler: the one at ``address``, or else a ``LocalCluster``
    of ``workers`` single-threaded processes started here (and stopped by ``close``)."""

    name = "dask"

    def __init__(self, address: str | None = None, workers: int = 1,
                 timeout: float | None = None) -> None:
        distributed = _distributed()
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        self.cluster = None
        if address:
            _reachable(address, timeout)
            self.client = _client(distributed, address, timeout)
        else:
            self.cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                                    processes=True, dashboard_address=None,
                                                    silence_logs=40)  # logging.ERROR
            self.client = distributed.Client(self.cluster, set_as_default=False)

    def completed(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        distributed = _distributed()
        futures = self.client.map(fn, list(tasks), pure=False)
        try:
            for future in distributed.as_completed(futures, loop=self.client.loop):
                yield future.result()
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def choose(workers: int, scheduler: str | None = None, cluster: str | None = None,
           keep: bool = False) -> Executor:
    """The executor the command line asks for: Dask when given a scheduler or a cluster, else a
    process pool of ``workers`` processes (serial for one; ``keep``: one pool for every call
    until closed)."""
    if scheduler and cluster:
        raise ExecutorError("--scheduler and --cluster exclude each other")
    if workers < 1:
        raise ExecutorError(f"--workers must be >= 1, got {workers}")
    if scheduler:
        return Dask(address=scheduler)
    if cluster == "local":
        return Dask(workers=workers)
    if cluster:
        raise ExecutorError(f"--cluster: only 'local' is known, got {cluster!r}")
    return Serial() if workers == 1 else Process(workers, keep)
