"""Write verify/run/costs.json from the JSON reports of runs (run by hand after a run of a profile):
the seconds per case of every check, which the runner uses only to start the longest tasks first.

    python -m verify all --json /tmp/default.json            # any profile
    python benchmarks/write_costs.py /tmp/default.json examples/baseline-quick.json

Each report replaces its profile's table; the other profiles' tables are kept.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

COSTS = Path(__file__).resolve().parent.parent / "verify" / "run" / "costs.json"
NOTE = ("seconds per case of each check, from the timings of a `verify all --json` run of each "
        "profile (benchmarks/write_costs.py); the runner starts the tasks with the largest sum "
        "first and nothing else reads them")


def per_case(report: dict) -> dict[str, float]:
    seconds = report["timings"]["seconds"]
    return {c["check"]: round(seconds.get(c["check"], 0.0) / c["cases"], 3)
            for c in report["checks"] if c["cases"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    args = parser.parse_args()
    table = json.loads(COSTS.read_text()) if COSTS.exists() else {}
    table["note"] = NOTE
    for path in args.reports:
        report = json.loads(path.read_text())
        table[report["profile"]] = per_case(report)
    COSTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {COSTS} ({', '.join(sorted(k for k in table if k != 'note'))})")


if __name__ == "__main__":
    main()
