"""The batched float64 path of the searches (issue 16): target_moments_batch and
target_floors_batch agree with the per-alpha functions, whatever the mix of grid lengths."""
import importlib

import numpy as np
import pytest

from verify.engine import general
from verify.engine.logits import compress


def _alphas(d: int, seed: int) -> list:
    """Attention vectors from tiny to capped logit spreads (grids of very different lengths)."""
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(3, d))
    return [compress(-eta * row) for eta in (1e-3, 1.0, 30.0, 1e6) for row in g]


@pytest.mark.parametrize("d", [3, 9])
def test_target_moments_batch_matches_the_per_alpha_moments(d, monkeypatch):
    alphas = _alphas(d, d)
    targets = [k % d for k in range(len(alphas))]
    monkeypatch.setattr(importlib.import_module("verify.engine.general.moments"),
                        "BATCH_ELEMENTS", 4000)  # several blocks
    M, m = general.target_moments_batch(d, alphas, targets)
    for k, (a, s) in enumerate(zip(alphas, targets)):
        M1, P1 = general.target_moments_float(d, a)
        assert np.allclose(M[k], M1, rtol=1e-13, atol=0)
        assert np.allclose(m[k], P1[:, s], rtol=1e-13, atol=0)


def test_target_floors_batch_matches_best_output_float():
    d = 6
    alphas = _alphas(d, 1)
    targets = [k % d for k in range(len(alphas))]
    values, betas = general.target_floors_batch(d, alphas, targets)
    for k, (a, s) in enumerate(zip(alphas, targets)):
        beta, value = general.best_output_float(d, s, a)
        assert abs(values[k] - value) < 1e-13
        assert np.allclose(betas[k], beta, rtol=1e-9, atol=1e-12)


def test_target_moments_batch_rejects_bad_input():
    with pytest.raises(ValueError):
        general.target_moments_batch(3, [[0.0, 0.0, 0.0]], [3])
    with pytest.raises(ValueError):
        general.target_moments_batch(3, [[0.0, np.nan, 0.0]], [0])


@pytest.mark.parametrize("preset", [None, "2"])
def test_the_command_sets_one_blas_thread_unless_the_user_chose_the_library_none(preset):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset:
        env["OPENBLAS_NUM_THREADS"] = preset
    show = "import os, {}; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    out = subprocess.run([sys.executable, "-c", show.format("verify.cli")],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (preset or "1")
    out = subprocess.run([sys.executable, "-c", show.format("verify.engine.expectations")],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (preset or "None")


def test_streams_of_a_chunk_are_the_spawned_children():
    """sampling.streams builds a chunk's generators alone, the same as SeedSequence.spawn's."""
    from verify.engine import sampling

    children = np.random.SeedSequence(30010090).spawn(12)
    chunk = sampling.streams(30010090, 12, 5, 4)
    assert len(chunk) == 4
    for child, (g1, g3) in zip(children[5:9], chunk):
        a, b = child.spawn(2)
        assert g1.integers(0, 2**62, 3).tolist() == np.random.default_rng(a).integers(0, 2**62, 3).tolist()
        assert g3.integers(0, 2**62, 3).tolist() == np.random.default_rng(b).integers(0, 2**62, 3).tolist()
