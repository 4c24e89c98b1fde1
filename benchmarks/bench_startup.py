"""Start-up cost of the command line, run by hand:

    python benchmarks/bench_startup.py [--repeat 5]

Times, as CPU-seconds of the whole child process (user + system, the smallest of --repeat runs;
wall seconds beside them), `verify --help`, a cold `verify eval` (a new process; the generated
code of the reduction already cached, as after any first use) and the same evaluation without
the cache (SymPy derives the reduction), against a hand-written mpmath.quad script for the same
point.  Targets: `verify --help` <= 0.3 s, the cold `verify eval` <= 0.6 s and at most half the
script's time.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

POINT = ["--d", "50", "--alpha-s", "40", "--alpha-j", "0", "--beta-s", "2", "--beta-j", "0", "--dps", "50"]
HANDWRITTEN = r'''
# The moments a background-symmetric point needs, by mpmath.quad, written by hand from the notes
# (section 4): at a positive gap the loss and its gradient are polynomials in
# nu_r = E[(1 - gamma)^r 1{k >= 1}], r = 1..3 (at beta = (2, 0) the loss is 2 nu_2).
import mpmath
mpmath.mp.dps = 50
d, gap = mpmath.mpf(50), mpmath.mpf(40)
p = 1 / (d - 1); q = 1 - p; b = mpmath.exp(-gap)

def G(j, z):
    return mpmath.factorial(j) * p * q ** (j - 1) / (1 - q * z) ** (j + 1)

def integrand(t, r):
    x, y = mpmath.exp(-t), mpmath.exp(-t * b)
    base = (d - 1) * y / d
    z, z0 = x / d + base, base
    s = sum(mpmath.stirling2(r, j) * base ** j * (G(j, z) - G(j, z0)) for j in range(1, r + 1))
    return b ** r / mpmath.factorial(r - 1) * t ** (r - 1) * s

nus = [mpmath.quad(lambda t: integrand(t, r), [0, p, 1, 10, 100, 1000, mpmath.inf]) for r in (1, 2, 3)]
print(mpmath.nstr(2 * nus[1], 30))
'''


def child_seconds(argv: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def best(argv: list[str], env: dict, repeat: int, prepare=None) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        if prepare:
            prepare()
        runs.append(child_seconds(argv, env))
    return min(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    verify = [sys.executable, "-m", "verify"]
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as empty:
        warm = {**os.environ, "VERIFY_CACHE_DIR": cache}
        subprocess.run(verify + ["eval", *POINT], env=warm, check=True, stdout=subprocess.DEVNULL)
        script = os.path.join(cache, "handwritten.py")
        with open(script, "w") as handle:
            handle.write(HANDWRITTEN)
        rows = [
            ("verify --help", best(verify + ["--help"], warm, args.repeat), 0.3),
            ("verify eval (cold process, code cached)", best(verify + ["eval", *POINT], warm, args.repeat), 0.6),
            ("verify eval (no cache: SymPy derives)", best(verify + ["eval", *POINT],
                                                          {**os.environ, "VERIFY_CACHE_DIR": empty}, args.repeat,
                                                          lambda: [os.remove(os.path.join(empty, f)) for f in os.listdir(empty)]), None),
            ("hand-written mpmath.quad script", best([sys.executable, script], warm, args.repeat), None),
        ]
    script_cpu = rows[-1][1][0]
    print(f"{'command':<44} {'CPU s':>7} {'wall s':>7} {'target':>7} {'vs script':>10}")
    for name, (cpu, wall), target in rows:
        shown = f"{target:.1f}" if target else "-"
        print(f"{name:<44} {cpu:7.3f} {wall:7.3f} {shown:>7} {cpu / script_cpu:9.2f}x")
    print(f"(load average {os.getloadavg()[0]:.2f}; smallest of {args.repeat} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
