"""One JSON shape per command (issue 31.8): every command's --json output validates against its
schema in docs/schemas/, and eval's numeric and certified outputs share one schema (a value is a
decimal string or a ball {mid, rad})."""
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from verify.cli import main

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"


def validator(name: str) -> Draft202012Validator:
    docs = {p.name: json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}
    registry = Registry().with_resources((n, Resource.from_contents(d)) for n, d in docs.items())
    Draft202012Validator.check_schema(docs[name])
    return Draft202012Validator(docs[name], registry=registry)


def json_of(capsys, *argv) -> object:
    code = main(list(argv))
    out, _ = capsys.readouterr()
    assert code in (0, 1), out
    return json.loads(out)


COMMANDS = [
    ("eval.schema.json", ["eval", "--d", "5", "--alpha-s", "2", "--beta-s", "1.5", "--dps", "20", "--json"]),
    ("eval.schema.json", ["eval", "--d", "5", "--alpha-s", "2", "--beta-s", "1.5", "--dps", "20", "--certified", "--json"]),
    ("plan.schema.json", ["plan", "three-phase", "--d", "5", "--eps", "0.1", "--dps", "15", "--json"]),
    ("report.schema.json", ["check", "prop1.short_attention", "--workers", "1", "--json"]),
    ("explain.schema.json", ["explain", "thm1.c3", "--json"]),
    ("ledger.schema.json", ["ledger", "--json"]),
    ("slack.schema.json", ["slack", "thm1.c3", "--only", "thm1.chain", "--json"]),
]


@pytest.mark.parametrize("schema,argv", COMMANDS, ids=[" ".join(a[:2]) + (" certified" if "--certified" in a else "") for _, a in COMMANDS])
def test_every_commands_json_matches_its_schema(capsys, schema, argv):
    validator(schema).validate(json_of(capsys, *argv))


def test_the_committed_quick_baseline_matches_the_report_schema():
    """A whole run's report (its summary rows carry the as-stated readings, its proof ledger
    their verdicts): the shape `verify all --json` writes."""
    data = json.loads((Path(__file__).resolve().parents[1] / "examples" / "baseline-quick.json").read_text())
    assert any("as_stated" in row for row in data["summary"])
    validator("report.schema.json").validate(data)


def test_diff_json_matches_its_schema(capsys):
    base = str(Path(__file__).resolve().parents[1] / "examples" / "baseline-quick.json")
    validator("diff.schema.json").validate(json_of(capsys, "diff", base, base, "--json"))


def test_numeric_and_certified_eval_share_their_keys(capsys):
    """A script written for one reads the other: the same keys, values of either form."""
    plain = json_of(capsys, "eval", "--d", "4", "--alpha-s", "1", "--dps", "15", "--json")
    ball = json_of(capsys, "eval", "--d", "4", "--alpha-s", "1", "--dps", "15", "--certified", "--json")
    assert set(plain["grad"]) == set(ball["grad"]) and "loss" in plain and "loss" in ball
    assert isinstance(plain["loss"], str) and set(ball["loss"]) == {"mid", "rad"}
    assert abs(float(plain["loss"]) - float(ball["loss"]["mid"])) <= float(ball["loss"]["rad"]) + 1e-12


def test_the_schema_can_fail():
    """A schema that accepted anything would prove nothing: the old certified shape (partials at
    the top level) is refused."""
    old = {"d": 4, "dps": 15, "evidence": "certified", "loss": {"mid": "1", "rad": "0"},
           "alpha_s": {"mid": "0", "rad": "0"}}
    assert list(validator("eval.schema.json").iter_errors(old))
