"""Executors: the same report from one process, a process pool and Dask (a LocalCluster or a
scheduler joined by address); the faults a cluster brings (a worker killed mid-run, a scheduler
that cannot be reached, Ctrl-C on the client) never change the report or corrupt the journal.

Every cluster here is two single-threaded worker processes; the checks are the quick profile of
``lemma-symmetry`` (8 cases in 6 tasks, about a second of work)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from verify import report
from verify.run import executors, memo, runner
from verify.checks import Case, Check, Evidence, Outcome, Profile
from verify.cli import main
from verify.constants import load, values
from verify.results import by_id, proof_graph, select
from verify.run.journal import Journal, run_key

distributed = pytest.importorskip("distributed")

CHECK = "lemma-symmetry"
ROOT = Path(__file__).resolve().parent.parent


def masked(json_text: str) -> dict:
    """The JSON report without its timings (kept apart under ``timings``: the only field that
    may differ between runs)."""
    data = json.loads(json_text)
    data.pop("timings")
    return data


def cli_run(tmp_path: Path, name: str, *flags: str) -> tuple[bytes, dict]:
    folder = tmp_path / name  # one folder per run, the same file names: the report names its figures' folder
    folder.mkdir()
    md, js = folder / "report.md", folder / "report.json"
    code = main(["check", CHECK, "--profile", "quick", "--output", str(md), "--json", str(js), *flags])
    assert code == 0
    return md.read_bytes(), masked(js.read_text())


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=50) as local:
        yield local


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The report of one process (--workers 1)."""
    return cli_run(tmp_path_factory.mktemp("ref"), "serial", "--workers", "1")


def test_a_process_pool_gives_the_same_report_as_one_process(tmp_path, reference):
    assert cli_run(tmp_path, "pool", "--workers", "2") == reference
    assert b"seconds" not in reference[0]  # the markdown holds no timings at all


def test_a_local_dask_cluster_gives_the_same_report(tmp_path, reference):
    assert cli_run(tmp_path, "local", "--cluster", "local", "--workers", "2") == reference


def test_a_joined_scheduler_gives_the_same_report(tmp_path, reference, cluster):
    assert cli_run(tmp_path, "joined", "--scheduler", cluster.scheduler_address) == reference


def test_workers_default_to_the_available_cores():
    from verify.cli.app import build_parser

    args = build_parser().parse_args(["all"])
    assert args.workers == executors.available_cores() >= 1
    assert args.scheduler is None and args.cluster is None


def test_dask_without_the_extra_is_one_line_and_exit_2(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert main(["check", CHECK, "--profile", "quick", "--cluster", "local"]) == 2
    err = capsys.readouterr().err
    assert "pip install" in err and "cluster" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("flags,needle", [
    (["--scheduler", "tcp://127.0.0.1:1", "--cluster", "local"], "exclude each other"),
    (["--workers", "0"], "argument --workers: expected an integer >= 1"),
    (["--scheduler", "no-port-here"], "not a scheduler address"),
])
def test_bad_executor_flags_are_one_line_and_exit_2(capsys, flags, needle):
    assert main(["check", CHECK, "--profile", "quick", *flags]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_and_exit_2_within_the_timeout(capsys):
    start = time.monotonic()
    assert main(["check", CHECK, "--profile", "quick", "--scheduler",
                 f"tcp://127.0.0.1:{_free_port()}"]) == 2
    assert time.monotonic() - start < executors.CONNECT_TIMEOUT + 1
    err = capsys.readouterr().err
    assert "cannot reach a Dask scheduler" in err and len(err.strip().splitlines()) == 1


def test_a_silent_listener_is_given_up_within_the_timeout(capsys, monkeypatch):
    """Something accepts the connection but never speaks Dask: given up after the timeout."""
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        start = time.monotonic()
        code = main(["check", CHECK, "--profile", "quick", "--scheduler",
                     f"tcp://127.0.0.1:{listener.getsockname()[1]}"])
    assert code == 2 and time.monotonic() - start < 1.0 + 2
    err = capsys.readouterr().err
    assert "no Dask scheduler answered" in err and len(err.strip().splitlines()) == 1


def _slow_group(resolve, group):
    """runner.run_group, a second slower: long enough to kill a worker in the middle of it."""
    time.sleep(1.0)
    return _REAL_RUN_GROUP(resolve, group)


_REAL_RUN_GROUP = runner.run_group


def test_a_worker_killed_mid_run_is_rescheduled_and_changes_nothing(tmp_path, monkeypatch, cluster,
                                                                    reference):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests
    monkeypatch.setattr(runner, "run_group", _slow_group)
    consts = load()
    journal = Journal(tmp_path / "j.jsonl", run_key("quick", {k: c.text for k, c in consts.items()}, {}))
    killed: list[str] = []
    with executors.Dask(address=cluster.scheduler_address) as ex:
        pids = ex.client.run(os.getpid)

        def kill_a_busy_worker(done: int, total: int) -> None:
            busy = [w for w, keys in ex.client.processing().items() if keys]
            if done and not killed and busy:
                killed.append(busy[0])
                os.kill(pids[busy[0]], signal.SIGKILL)

        results = select([CHECK])
        reports = runner.run(results, values(consts), Profile.QUICK, journal=journal, executor=ex, resolve=by_id,
                             check_ids=[CHECK], progress=kill_a_busy_worker)
    assert killed, "no worker was busy when the first task finished"
    lines = [json.loads(x) for x in journal.path.read_text().splitlines()[1:]]
    counts = Counter((x["check"], x["case"]) for x in lines)
    expected = sum(len(r.outcomes) for r in reports)
    assert len(counts) == expected and set(counts.values()) == {1}  # each case once
    text = report.json_report(reports, results, consts, Profile.QUICK, graph=proof_graph())
    ref = dict(reference[1], provenance={})  # the CLI adds the provenance; runner.run does not
    assert masked(text) == ref


DRIVER = textwrap.dedent("""
    import sys, time
    from verify.cli import app as cli
    from verify.run import runner
    real = runner.run_group
    def slow(resolve, group):  # pickled by value (defined in __main__): each task takes a second more
        time.sleep(1.0)
        return real(resolve, group)
    runner.run_group = slow
    sys.exit(cli.main(sys.argv[1:]))
""")


def test_ctrl_c_leaves_a_journal_that_resumes_cleanly(tmp_path, reference):
    journal, js = tmp_path / "j.jsonl", tmp_path / "r.json"
    argv = ["check", CHECK, "--profile", "quick", "--journal", str(journal)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # a user's terminal delivers Ctrl-C to a process whose SIGINT is at its default; a test run
    # started in the background (`cmd &` in a script) ignores SIGINT, and a child inherits that
    client = subprocess.Popen([sys.executable, "-c", DRIVER, *argv, "--cluster", "local", "--workers", "2"],
                              env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and client.poll() is None:
            if journal.exists() and len(journal.read_text().splitlines()) >= 2:  # key + one case
                break
            time.sleep(0.1)
        client.send_signal(signal.SIGINT)
        _, err = client.communicate(timeout=30)
    finally:
        client.kill()
    assert client.returncode == 130, err
    assert "interrupted" in err
    kept = journal.read_text().splitlines()
    cases = sum(len(c.cases(Profile.QUICK, values(load()), {})) for c in select([CHECK])[0].checks)
    assert 2 <= len(kept) < cases + 1  # stopped mid-run, every kept line whole
    assert main([*argv, "--workers", "1", "--json", str(js)]) == 0
    lines = [json.loads(x) for x in journal.read_text().splitlines()[1:]]
    assert journal.read_text().startswith("\n".join(kept))  # the stopped run's cases were reused
    assert sorted(Counter((x["check"], x["case"]) for x in lines).values()) == [1] * cases
    assert masked(js.read_text()) == reference[1]


# The outcome store: a check that reads another check's outcome takes it from the run.

def _counting_check(calls: list[str]) -> Check:
    def judge(case: Case, constants) -> Outcome:
        calls.append(case.label)
        return Outcome(case.label, True, 2.0, Evidence.NUMERIC, "ok", values={"floor": 0.25})
    return Check("x.floor", "step", "claim", Evidence.SEARCH, lambda *a: [], judge)


def test_an_outcome_in_the_store_is_read_not_recomputed(tmp_path):
    calls: list[str] = []
    floor = _counting_check(calls)
    case, consts = Case("d=9", {"d": 9, "seed": 0}), values(load())
    store = memo.OutcomeStore(tmp_path, code="abc")
    first = memo.serving(store, lambda c: memo.judge(floor, c, consts), case)
    again = memo.serving(store, lambda c: memo.judge(floor, c, consts), case)
    assert first == again and calls == ["d=9"]
    memo.judge(floor, case, consts)  # no store active: computed
    assert calls == ["d=9"] * 2


def test_the_store_key_holds_everything_an_outcome_depends_on(tmp_path):
    consts = values(load())
    store = memo.OutcomeStore(tmp_path, code="abc")
    case = Case("d=9", {"d": 9, "seed": 0})
    key = store.key("x.floor", case, consts)
    assert key != store.key("x.other", case, consts)
    assert key != store.key("x.floor", Case("d=9", {"d": 9, "seed": 1}), consts)
    assert key != store.key("x.floor", Case("d=9, eps=0.1", {"d": 9, "seed": 0}), consts)
    assert key != memo.OutcomeStore(tmp_path, code="abd").key("x.floor", case, consts)
    other = dict(consts)
    other[next(iter(other))] += 1
    assert key != store.key("x.floor", case, other)


def test_the_runner_judges_through_the_store_so_a_reader_reuses_a_finished_case(tmp_path, monkeypatch):
    """A check that reads another check's outcome (as the contrast reads the floors) through
    memo.judge gets the outcome the run already computed: the floor is judged once."""
    from verify.checks import Result

    calls: list[str] = []
    floor = Check("x.floor", "step", "claim", Evidence.SEARCH,
                  lambda *a: [Case("d=9", {"d": 9})], _counting_check(calls).judge)

    def read_floor(case: Case, constants) -> Outcome:
        known = memo.judge(floor, Case("d=9", {"d": 9}), constants)
        return Outcome(case.label, True, 1.0, Evidence.SEARCH, f"floor {known.values['floor']}")

    reader = Check("y.reads", "step", "claim", Evidence.SEARCH,
                   lambda *a: [Case("d=9", {"d": 9})], read_floor)
    fake = {"x": Result("x", "X", "s", "h", (), checks=(floor,)),
            "y": Result("y", "Y", "s", "h", (), checks=(reader,))}
    reports = runner.run(list(fake.values()), values(load()), Profile.QUICK, workers=1,
                         resolve=fake.__getitem__,
                         store=memo.OutcomeStore(tmp_path, code="abc"))
    assert calls == ["d=9"]
    assert reports[1].outcomes[0].detail == "floor 0.25"
    runner.run(list(fake.values()), values(load()), Profile.QUICK, workers=1,
               resolve=fake.__getitem__)  # no store: recomputed
    assert calls == ["d=9"] * 3
