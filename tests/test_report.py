"""CI regression: the quick profile of `verify all` passes, and its report is well formed."""
import json

from verify.cli import main


def test_quick_profile_passes(capsys, tmp_path, monkeypatch):
    from verify.cli import run as cli

    monkeypatch.setattr(cli, "REPORT_PATH", tmp_path / "REPORT.md")
    code = main(["all", "--profile", "quick", "--workers", "2", "--json", str(tmp_path / "r.json"),
                 "--output", str(tmp_path / "REPORT.md")])  # quick writes no report unless asked
    out, _ = capsys.readouterr()
    data = json.loads((tmp_path / "r.json").read_text())
    assert code == 0, data["failures"]
    assert data["exit_code"] == 0
    statuses = {row["check"]: row["status"] for row in data["checks"]}
    assert statuses["prop1.bound"] == "pass"
    assert statuses["thm2.beta1_range"] == "discrepancy"  # documented: d <= 4 at eta1 = sqrt(d)
    report = (tmp_path / "REPORT.md").read_text()
    assert "## Discrepancies" in report and "thm2.beta1_range" in report
    assert data["not_checked_yet"] == []
    # the terminal shows the per-result summary, not every check's table, and the verdict last
    assert "one row per result" in out and "prop1.short_attention" not in out
    # (a narrow terminal, as under pytest-xdist, wraps the verdict onto a second line)
    lines = out.strip().splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("Verdict:"))
    assert lines[last].startswith("Verdict: every check passes") and len(lines) - last <= 3
    # the report opens with the summary: a row per result, within one screen
    lines = report.splitlines()
    end = next(i for i in range(lines.index("| result | statement | verdict | strongest evidence (range covered) | discrepancies |"), len(lines))
               if not lines[i].startswith("|"))
    assert end <= 30 and sum(line.startswith("| [") for line in lines[:end]) == len(data["summary"]) >= 10
    assert (tmp_path / "REPORT-figures").is_dir() or "figures" in report  # drawn beside the report


def test_a_result_without_checks_is_never_reported_as_passed():
    from verify.checks import Profile, Result
    from verify.constants import load
    from verify.report import json_report, markdown

    bare = Result("x", "Result X", "a claim", "none", ())
    text = markdown([], [bare], load(), Profile.QUICK)
    assert "**Not checked yet.**" in text and "some checks FAIL" not in text
    assert '"not_checked_yet": [\n    "x"\n  ]' in json_report([], [bare], load(), Profile.QUICK)


def test_exhibit_is_drawn_from_its_check_outcomes():
    from verify.checks import Check, Evidence, Exhibit, Outcome, Profile, Result
    from verify.constants import load
    from verify.report import exhibit_tables, json_report, markdown
    from verify.run.runner import CheckReport

    check = Check("x.c", "step", "claim", Evidence.NUMERIC, lambda *a: [], lambda *a: None)
    result = Result("x", "Result X", "a claim", "none", (), checks=(check,),
                    exhibits=(Exhibit("x.c", "Side by side", "A caption.", (("d", "d"), ("v", "value"))),))
    rep = CheckReport(result, check, [Outcome("d=3", True, 2.0, Evidence.NUMERIC, "", values={"d": 3, "v": 0.123456}),
                                      Outcome("d=5", True, 2.0, Evidence.NUMERIC, "", values={"d": 5})])
    text = markdown([rep], [result], load(), Profile.QUICK)
    assert rep.status == "pass" and rep.missing == 0
    assert "### Side by side (`x.c`)" in text
    assert "| d | value |" in text and "| 3 | 0.1235 |" in text and "| 5 | - |" in text
    data = json.loads(json_report([rep], [result], load(), Profile.QUICK))
    assert data["exhibits"][0]["rows"] == [["3", "0.1235"], ["5", "-"]]
    assert data["checks"][0]["outcomes"][0]["values"] == {"d": 3, "v": 0.123456}
    assert len(exhibit_tables([result], [rep])) == 1
    assert exhibit_tables([result], []) == []  # the check did not run: no exhibit


def test_default_report_links_the_recorded_full_report(tmp_path, monkeypatch):
    from verify.cli import run as cli
    from verify.checks import Profile
    from verify.constants import load
    from verify.report import markdown

    monkeypatch.setattr(cli, "REPORT_PATH", tmp_path / "REPORT.md")
    assert cli.companion_links(tmp_path / "REPORT.md", Profile.DEFAULT) == []  # no full report yet
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "full.md").write_text("# Theorem report\n")
    lines = cli.companion_links(tmp_path / "REPORT.md", Profile.DEFAULT)
    assert len(lines) == 1 and "[reports/full.md](reports/full.md)" in lines[0]
    assert cli.companion_links(tmp_path / "REPORT.md", Profile.FULL) == []
    assert cli.companion_links(tmp_path / "other.md", Profile.DEFAULT) == []
    text = markdown([], [], load(), Profile.DEFAULT, see_also=lines)
    assert lines[0] in text.split("## Discrepancies")[0]


def _cells(line: str) -> list[str]:
    """The cells of a markdown table row (an escaped pipe stays inside its cell)."""
    import re

    return [c for c in re.split(r"(?<!\\)\|", line)[1:-1]]  # a cell with its padding


def test_no_cell_of_the_committed_report_is_over_300_characters():
    from pathlib import Path

    from verify.report.cells import CELL_LIMIT

    report = (Path(__file__).resolve().parents[1] / "REPORT.md").read_text()
    long = [(n, len(c)) for n, line in enumerate(report.splitlines(), 1) if line.startswith("|")
            for c in _cells(line) if len(c) > CELL_LIMIT]
    assert not long, long


def test_cells_shorten_vectors_and_keep_the_whole_text_in_the_appendix():
    from verify.report.cells import fit, shorten_vectors
    from verify.report.markdown import Appendix

    vector = "[" + ", ".join(f"{x / 7:.4g}" for x in range(50)) + "]"
    assert shorten_vectors(f"beta~ = {vector}").endswith(", …] (50 entries)")
    appendix = Appendix()
    long = "alpha = " + vector + "; " + "word " * 100
    cell = appendix.cell(long, "x.check, worst case")
    assert len(cell) <= 298 and cell.endswith(" … ([whole](#detail-1))") and shorten_vectors(long).startswith(cell[:200])
    assert long in "\n".join(appendix.lines())
    assert appendix.cell("short", "x") == "short" and len(appendix.entries) == 1


def test_figures_are_the_same_bytes_twice_and_absent_without_matplotlib(tmp_path, monkeypatch):
    from verify.checks import Case, Check, Evidence, Outcome, Result
    from verify.constants import load
    from verify.report import figures
    from verify.run.runner import CheckReport

    check = Check("prop3.floor", "Proposition 3", "claim", Evidence.SEARCH, lambda *a: [], lambda *a: None)
    result = Result("prop3", "Proposition 3", "s", "h", (), checks=(check,))
    rep = CheckReport(result, check, [Outcome(f"d={d}", True, 2.0, Evidence.SEARCH, "", values={"floor": 0.1 + 0.01 * d})
                                      for d in (3, 5, 10)], params={f"d={d}": {"d": d} for d in (3, 5, 10)})
    first = figures.draw([rep], load(), tmp_path / "a", tmp_path)
    second = figures.draw([rep], load(), tmp_path / "b", tmp_path)
    assert [t for t, _ in first] == [t for t, _ in second] and len(first) == 1
    assert (tmp_path / "a" / "floors.png").read_bytes() == (tmp_path / "b" / "floors.png").read_bytes()


def test_the_summary_names_the_strongest_evidence_with_its_range():
    from verify.checks import Case, Check, Evidence, Outcome, Reach, Result
    from verify.report.summary import pretty, strongest, verdict
    from verify.run.runner import CheckReport

    box = Check("x.box", "X (certified)", "claim", Evidence.CERTIFIED, lambda *a: [], lambda *a: None, reach=Reach.RANGE)
    grid = Check("x.grid", "X", "claim", Evidence.NUMERIC, lambda *a: [], lambda *a: None)
    step = Check("x.step", "A.2 step 1", "claim", Evidence.SYMBOLIC, lambda *a: [], lambda *a: None)
    result = Result("x", "X", "s", "h", (), checks=(box, grid, step))
    reps = [CheckReport(result, box, [Outcome("b", True, 1.0, Evidence.CERTIFIED, "", values={"checker": "accepted"})],
                        params={"b": {"d_lo": 2, "d_hi": 1e9, "eps_lo": 1e-6, "eps_hi": 0.99}}),
            CheckReport(result, grid, [Outcome(f"d={d}", True, 2.0, Evidence.NUMERIC, "") for d in (3, 10, 50)],
                        params={f"d={d}": {"d": d} for d in (3, 10, 50)}),
            CheckReport(result, step, [Outcome("all d >= 2", True, None, Evidence.SYMBOLIC, "")])]
    text = strongest(reps)
    assert text.startswith("certified for every real d ∈ [2, 10⁹], ε ∈ [10⁻⁶, 0.99]; numeric at d = 3, 10, 50")
    assert "proof steps" not in text and verdict(reps) == "holds as checked"  # no ledger given
    failing = CheckReport(result, grid, [Outcome("d=3", False, 0.5, Evidence.NUMERIC, "")], params={"d=3": {"d": 3}})
    assert verdict([*reps[:1], failing]) == "FAIL (1 check)"
    assert pretty(1e-6) == "10⁻⁶" and pretty(2.5e5) == "2.5·10⁵" and pretty(0.99) == "0.99"


def test_the_summary_joins_a_box_and_its_eps_tail_and_names_the_step_sizes():
    """Theorem 2's two certified cases (eps in [1e-6, 0.99] and its tail (0, 1e-6], both over
    every step size) read as one range in all four parameters; boxes that differ along both
    axes are not merged; cube cases read "d = 3, 4"."""
    from verify.checks import Check, Evidence, Outcome, Reach, Result
    from verify.report.summary import strongest
    from verify.run.runner import CheckReport

    box = Check("x.box", "X (certified)", "claim", Evidence.CERTIFIED, lambda *a: [], lambda *a: None, reach=Reach.RANGE)
    result = Result("x", "X", "s", "h", (), checks=(box,))
    uv = {"u_lo": 0.0, "u_hi": 1.0, "v_lo": 0.0, "v_hi": 1.0, "checker": "accepted"}
    main = {"d_lo": 3.0, "d_hi": 1e9, "eps_lo": 1e-6, "eps_hi": 0.99, **uv}
    tail = {**main, "eps_lo": 0.0, "eps_hi": 1e-6}
    rep = CheckReport(result, box, [Outcome("a", True, 1.0, Evidence.CERTIFIED, "", values=main),
                                    Outcome("b", True, 1.0, Evidence.CERTIFIED, "", values=tail)])
    assert strongest([rep]) == ("certified for every real d ∈ [3, 10⁹], ε ∈ (0, 0.99], every "
                                "η₁ ∈ (0, √d] and η₂ ≥ its minimum")
    apart = {**main, "d_lo": 10.0, "d_hi": 20.0, "eps_lo": 0.5, "eps_hi": 0.9}
    rep = CheckReport(result, box, [Outcome("a", True, 1.0, Evidence.CERTIFIED, "", values=main),
                                    Outcome("b", True, 1.0, Evidence.CERTIFIED, "", values=apart)])
    assert " ∪ " not in strongest([rep]) and strongest([rep]).count("every real d") == 2
    # a box the independent checker did not read is named apart: certified, engine only
    rep = CheckReport(result, box, [Outcome("a", True, 1.0, Evidence.CERTIFIED, "", values=main),
                                    Outcome("b", True, 1.0, Evidence.CERTIFIED, "",
                                            values={**tail, "checker": "engine only"})])
    assert strongest([rep]) == ("certified for every real d ∈ [3, 10⁹], ε ∈ [10⁻⁶, 0.99], every η₁ ∈ "
                                "(0, √d] and η₂ ≥ its minimum; every real d ∈ [3, 10⁹], ε ∈ (0, 10⁻⁶], "
                                "every η₁ ∈ (0, √d] and η₂ ≥ its minimum (certified, engine only)")
    cube = CheckReport(result, box, [Outcome(f"d={d}", True, 1.0, Evidence.CERTIFIED, "") for d in (3, 4)])
    assert strongest([cube]) == "certified for d = 3, 4 (certified, engine only)"  # no checker said


def test_each_figure_says_what_it_shows_and_a_shared_caption_comes_once():
    from verify.report.markdown import figure_lines

    lines = figure_lines([("A", "figures/tiling-a.png"), ("B", "figures/tiling-b.png"),
                          ("Floors", "figures/floors.png")])
    text = "\n".join(lines)
    assert text.count("The certified tilings") == 1 and "upper bound of the true infimum" in text
    assert text.index("The certified tilings") < text.index("![A]")
