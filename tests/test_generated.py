"""The reduction's closed forms as cached generated code (verify/engine/generated.py): the cached
code computes what SymPy derives, a cold process with a cache evaluates without importing SymPy,
and an entry written for other source is never used."""
import json
import subprocess
import sys

import mpmath
import pytest

from verify.engine import generated


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE_DIR", str(tmp_path))
    generated.form.cache_clear()
    yield tmp_path
    generated.form.cache_clear()


def test_cached_code_equals_a_fresh_derivation(cache):
    from verify.engine.symbolic import form_source

    for name in generated.FORMS:
        fresh = form_source(name)
        first = generated.form(name)  # derives and writes
        assert first["code"] == fresh["code"] and first["order"] == fresh["order"]
        generated.form.cache_clear()
        assert generated.form(name)["code"] == fresh["code"]  # read back from the file
    with mpmath.workdps(30):
        args = (mpmath.mpf(7), mpmath.mpf("1.25"), mpmath.mpf("0.5"), *(mpmath.mpf(x) / 10 for x in (3, 2, 1, 1)))
        assert generated.reduction("mu")(*args) == generated.reduction("mu")(*args)


def test_a_stale_or_forged_entry_is_not_used(cache):
    name = "reduction-mu"
    generated.form(name)
    path = next(cache.glob(f"{name}-*.json"))
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "key": "another source"}))  # written for other source
    generated.form.cache_clear()
    assert generated.form(name)["key"] == generated.key()
    path.write_text("not json")
    generated.form.cache_clear()
    assert "def " in generated.form(name)["code"]


def test_a_cold_process_with_a_cache_evaluates_without_sympy(cache):
    program = ("import sys; from verify.engine.symmetric import SymmetricPoint, evaluate; "
               "ev = evaluate(SymmetricPoint(5, '1', '0', '2', '0'), 15); "
               "print('sympy' in sys.modules, ev.loss)")
    env = {"VERIFY_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    first = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split()[0] == "True"  # the first process derived (and wrote the cache)
    assert second.stdout.split()[0] == "False" and second.stdout.split()[1] == first.stdout.split()[1]
