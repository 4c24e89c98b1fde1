"""Check the built distribution in a folder (default dist/): the wheel carries the default
constants, byte-identical to proofs/constants.toml, and the licence; it carries no tests, no
notebooks and no notebook outputs.  Prints one line per problem and exits 1 if there is any.

    python .ci/check_dist.py [DIST_DIR]
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTANTS = "verify/data/constants.toml"
REQUIRED = ("verify/regression/dependency_map.json", "verify/run/costs.json", "verify/experiments/config/occurrence.toml")  # package data
FORBIDDEN = ("tests/", "notebooks/", ".ipynb", ".ipynb_checkpoints", "REPORT.md", "reports/")


def wheel_problems(wheel: Path, constants: bytes) -> list[str]:
    """What is wrong with one wheel (empty: nothing)."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        problems = [f"{wheel.name}: must not contain {name}" for name in names
                    if any(bad in name for bad in FORBIDDEN)]
        if CONSTANTS not in names:
            problems.append(f"{wheel.name}: no {CONSTANTS} (the default constants)")
        elif archive.read(CONSTANTS) != constants:
            problems.append(f"{wheel.name}: {CONSTANTS} differs from proofs/constants.toml")
        problems += [f"{wheel.name}: no {name} (package data)" for name in REQUIRED
                     if name not in names]
        if not any(name.endswith(".dist-info/licenses/LICENSE") for name in names):
            problems.append(f"{wheel.name}: no LICENSE in its metadata")
    return problems


def main(argv: list[str]) -> int:
    dist = Path(argv[0]) if argv else ROOT / "dist"
    wheels = sorted(dist.glob("*.whl"))
    problems = [] if wheels else [f"no wheel in {dist}"]
    constants = (ROOT / "proofs" / "constants.toml").read_bytes()
    for wheel in wheels:
        problems += wheel_problems(wheel, constants)
    for line in problems:
        print(f"check_dist: {line}", file=sys.stderr)
    if not problems:
        print(f"check_dist: {', '.join(w.name for w in wheels)}: default constants present and "
              "identical to proofs/constants.toml; no tests, notebooks or reports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
