"""verify/search.py: the routines, and same seed -> same bytes (issue 12, item 8).

The float64 engine's last bits differ between CPUs (OpenBLAS and numpy choose SIMD kernels per
machine).  These tests never touch the BLAS settings (OPENBLAS_* stay as the machine sets them):
they perturb the engine's outputs by a few ulps and check that a report does not change.
"""
import json

import numpy as np
import pytest

from verify.cli import app as cli
from verify import search
from verify.engine import general

ULP = 2.0**-52


# --------------------------------------------------------------------------------- routines


def test_decisive_rounds_to_significant_bits_and_keeps_specials():
    for x in (0.12345678901234, -1234567.891234, 1e-300, 3e300):
        r = search.decisive(x)
        assert abs(r - x) <= abs(x) * 2.0 ** -search.SIG_BITS
        assert search.decisive(r * (1 + 3 * ULP)) == r  # a rounded value is a fixed point
    assert search.decisive(0.0) == 0.0
    out = search.decisive(np.array([np.inf, -np.inf, np.nan]))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


def test_argmax_breaks_near_ties_by_the_first_index():
    v = np.array([0.25, 0.25 * (1 + 2 * ULP), 0.1])
    assert search.argmax(v) == 0 and search.argmax(v[::-1][[1, 0, 2]]) == 0
    assert search.argmin(np.array([0.3, 0.1 * (1 + ULP), 0.1])) == 1


def test_nelder_mead_respects_its_budget_and_descends():
    calls = []

    def f(x):
        calls.append(1)
        return float(((x - np.array([1.0, -2.0])) ** 2).sum())

    x, value, used = search.nelder_mead(f, np.zeros(2), 0.5, 80)
    assert used == len(calls) <= 80 and value < 1e-3 and np.allclose(x, [1, -2], atol=0.05)


def test_adam_finds_a_quadratic_minimum_in_a_box():
    val, x, calls = search.adam(lambda x: (float(((x - 3) ** 2).sum()), 2 * (x - 3)),
                                np.zeros(2), 200, 0.3, project=lambda x: np.clip(x, -5, 2))
    assert calls == 200 and np.allclose(x, [2, 2], atol=1e-2) and abs(val - 2) < 0.05


def test_minimise_max_decreases_a_max():
    # max of two shifted parabolas: minimum 1 at x = 0 (the descent must get close)
    x, value, used = search.minimise_max(
        lambda x: np.array([(x[0] - 1) ** 2, (x[0] + 1) ** 2]), np.array([2.0]), 200)
    assert value < 1.05 and used <= 200


def test_multistart_is_reproducible_and_counts_its_effort():
    def values(x):
        return np.array([(x[0] - 1) ** 2 + x[1] ** 2, (x[0] + 1) ** 2])

    a = search.multistart(values, [("0", np.zeros(2))], 3, 120, 2, 5, 2)
    b = search.multistart(values, [("0", np.zeros(2))], 3, 120, 2, 5, 2)
    assert a.value == b.value and np.array_equal(a.x, b.x) and a.effort == b.effort
    assert a.effort["evaluations"] <= 120 and set(a.by_family) <= {"structured", "random", "adversarial"}
    assert a.value <= 1.0


# ------------------------------------------------------------------------ same seed, same bytes


def _report(tmp_path, name: str, *args: str) -> str:
    """The --json report of one check with the timings removed (canonical bytes)."""
    path = tmp_path / f"{name}.json"
    assert cli.main(["check", *args, "--json", str(path)]) in (0, 1)
    data = json.loads(path.read_text())
    data.pop("timings")  # wall and CPU seconds: never reproducible
    assert "seconds" not in json.dumps(data)
    return json.dumps(data, sort_keys=True)


def _perturbed(fn, k: int):
    """``fn`` with every float64 array it returns multiplied by 1 + k 2^-52 (a few ulps)."""
    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        if isinstance(out, np.ndarray):
            return out * (1 + k * ULP)
        return tuple(o * (1 + k * ULP) if isinstance(o, np.ndarray) else o for o in out)

    return wrapped


@pytest.mark.parametrize("k", [3, -2])
def test_prop3_floor_report_ignores_ulp_changes_of_the_engine(tmp_path, monkeypatch, k):
    args = ("prop3.floor", "--d", "3", "--profile", "quick")
    before = _report(tmp_path, "before", *args)
    monkeypatch.setattr(general, "target_moments_float", _perturbed(general.target_moments_float, k))
    assert _report(tmp_path, "after", *args) == before


def test_thm1_floor_report_ignores_ulp_changes_of_the_engine(tmp_path, monkeypatch):
    args = ("thm1.floor", "--d", "9", "--profile", "quick")
    before = _report(tmp_path, "before", *args)
    monkeypatch.setattr(general, "target_floors_batch", _perturbed(general.target_floors_batch, 3))
    assert _report(tmp_path, "after", *args) == before


def test_thm1_large_output_tightness_report_ignores_ulp_changes_of_the_engine(tmp_path, monkeypatch):
    args = ("thm1.large_output_tightness", "--d", "9", "--profile", "quick")
    before = _report(tmp_path, "before", *args)
    monkeypatch.setattr(general, "target_moments_batch", _perturbed(general.target_moments_batch, -3))
    assert _report(tmp_path, "after", *args) == before


def test_thm1_chosen_target_report_ignores_ulp_changes_of_the_engine(tmp_path, monkeypatch):
    args = ("thm1.chosen_target", "--d", "9", "--profile", "quick")
    before = _report(tmp_path, "before", *args)
    monkeypatch.setattr(general, "target_floors_batch", _perturbed(general.target_floors_batch, 3))
    assert _report(tmp_path, "after", *args) == before


def test_same_bytes_with_one_or_two_workers(tmp_path):
    args = ("prop3.floor", "--d", "3,4", "--profile", "quick")
    assert _report(tmp_path, "w1", *args, "--workers", "1") == _report(tmp_path, "w2", *args,
                                                                       "--workers", "2")


@pytest.mark.parametrize("args, module, name", [
    # the float solver's minimiser lies on the sphere ||b|| = R: its last bits used to decide
    # whether the Arb upper end was the loss at it or at a point scaled inside (issue 26, item 9)
    (("prop4.certified_floor", "--d", "9"), "verify.results.prop4", "trust_region"),
    (("prop3.certified_floor", "--d", "3"), "verify.engine.general", "target_moments_float"),
    (("thm1.certified_value", "--d", "9"), "verify.engine.general", "target_floors_batch"),
    (("lemma-low-attention.certified_ceiling", "--d", "3"), "verify.engine.general",
     "second_diagonal_float"),
], ids=["prop4", "prop3", "thm1", "lemma"])
def test_certified_floor_reports_ignore_ulp_changes_of_the_float_engine(tmp_path, monkeypatch,
                                                                       args, module, name):
    import importlib

    mod = importlib.import_module(module)
    before = _report(tmp_path, "before", *args, "--profile", "quick")
    for k in (3, -3):
        with monkeypatch.context() as mp:
            mp.setattr(mod, name, _perturbed(getattr(mod, name), k))
            assert _report(tmp_path, f"after{k}", *args, "--profile", "quick") == before, k
