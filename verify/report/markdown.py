"""REPORT.md: the per-result summary first (one screen), then how to read it, the ledger, the
figures, one section per result with its checks, the discrepancies, the measured constants,
the constants, an appendix with every detail that a cell had to cut, and the provenance."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ..checks import EVIDENCE_DEFINITIONS, Profile, Result
from ..constants import Constant
from ..ledger import Obligation
from ..regression.dependencies import compact, used_by
from ..run.runner import CheckReport
from .cells import TEXT_LIMIT, escape_cell, fit
from . import proof_ledger
from .exhibits import exhibits
from .rows import EXIT_MEANING, exit_code, ledger_text, overall, passed_text, rows, status_text, worst_text
from .summary import headline, recorded_claims, section5_line, summary_rows

SUMMARY_LEGEND = ("One row per result of the paper: its statement; its verdict, composed from its proof "
                  "(the proof ledger: a result is proved over a range only when every step and lemma "
                  "on its proof's path is, by SymPy or by a certificate the independent checker "
                  "accepts; otherwise the verdict names the weakest links); the strongest evidence "
                  "with the range it covers (the kinds are explained below the table); and the "
                  "documented discrepancies. Each result's section below draws its proof and has one "
                  "row per check. A † after a statement: some of its checks test a statement or "
                  "constant reconstructed where the paper's text lost it (marked † in its section).")
READING = """\
How to read this report:

- *Verdict* is composed from the result's proof, a graph of obligations (its statement, the
  steps of its proofs/ document, the lemmas it uses, each step the text lost as an *open* node;
  `verify ledger` prints it): *proved for R* when every obligation on a path to the statement
  is proved over R (symbolically: SymPy's steps, with the standard facts of probability and
  counting the result's proofs/ document names, such as linearity of expectation or a sum over
  disjoint sets; or by a certificate the independent checker accepts);
  otherwise the strongest evidence for the rest and its weakest links (in brackets): *certified,
  engine only* (a certificate the independent checker does not read, which also rests on the
  engine's hand-proved lemmas), *hand proof*, *numeric*, *statistical* or *searched at points*,
  *open*. A failing, undecided or incomplete check is named first. The headline counts the
  results proved over their whole stated range, over part of it, and supported only.
- *As the paper states it*: where the text lost a constant and says only "there is c > 0" or
  "O(√d) heads", the verdict judges the configured constant (proofs/constants.toml) first, then
  the paper's existential statement, composed from its own node (`RESULT.as-stated` in `verify
  ledger`): one constant for every d, the smallest that a proof on its path uses (named in the
  node's claim and in the result's proofs/ document). The headline counts both readings.
- *Strongest evidence* names the kind of evidence of the statement's checks and the range it
  covers. Every check below states its own kind:
{kinds}
- *Passed* counts held-out cases out of held-out cases. Where a constant was measured on some
  cases (its calibration set), those in-sample cases are shown apart (`+25/25 in-sample`) and
  never counted; a vacuous case (a target <= 0: nothing tested) is shown, never counted. A proof
  over a range (symbolic, a certified box) proves its calibration cases as every other point:
  it is counted, and the evidence column says which of its ranges hold calibration cases.
- *Margin*: how much room the claim has, oriented so that a larger margin is more room. `xR` is
  a ratio (a ceiling R times the value; for a floor, the value R times the bound); `+D` a
  difference (absolute, or relative where the detail says so: the certified boxes of Theorem 2
  and Corollary 1 store relative margins, 1 - L/eps; Proposition 1's store eps - L, absolute);
  `proved` marks a symbolic step (a proof has no slack to show).
- The certified boxes of Theorem 2 and Corollary 1 compute in the four-scalar reduction at
  background-symmetric points; that gradient descent stays there is Lemma A.7, proved by SymPy
  from the model (`lemma-symmetry.invariance`), and a node of both proofs.
- A *discrepancy* is a documented failure of the paper (or of our reconstruction), scoped to the
  cases where it is expected; a failure outside its scope is a FAIL. Checks marked † test a
  reconstructed statement or constant (see the linked document).
- Exit code {exit_meaning}."""


class Appendix:
    """Details too long for a table cell: the cell shows the shortened text and a link here."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str]] = []

    def cell(self, text: str, label: str) -> str:
        if fit(text) == text:
            return escape_cell(text)
        anchor = f"detail-{len(self.entries) + 1}"
        link = f" ([whole](#{anchor}))"
        self.entries.append((anchor, f"{label}: {text}"))
        limit = TEXT_LIMIT - len(link)  # the link, and the escapes of pipes, within the limit
        while len(short := escape_cell(fit(text, limit))) + len(link) > TEXT_LIMIT:
            limit -= len(short) + len(link) - TEXT_LIMIT
        return short + link

    def lines(self) -> list[str]:
        if not self.entries:
            return []
        out = ["## Appendix: details in full", "",
               "Cells above shorten long vectors and cut long details; here they are whole (the "
               "JSON report has them too).", ""]
        for anchor, text in self.entries:
            out += [f'<a id="{anchor}"></a>', "<details><summary>" + escape_cell(text[:80]) + " …</summary>",
                    "", escape_cell(text), "", "</details>", ""]
        return out


def kinds_text() -> str:
    """The evidence kinds, one indented bullet each (the legend)."""
    return "\n".join(f"  - *{kind.value}*: {text}." for kind, text in EVIDENCE_DEFINITIONS.items())


def summary_lines(reports: Sequence[CheckReport], results: Sequence[Result],
                  graph: Mapping[str, Obligation] | None = None) -> list[str]:
    """The summary table: one row per result, linking its section (a failed verdict in bold)."""
    out = ["| result | statement | verdict | strongest evidence (range covered) | discrepancies |",
           "|---|---|---|---|---|"]
    rebuilt = {r.id for r in results if any(c.reconstructed for c in r.checks)}
    for row in summary_rows(reports, results, graph):
        shown = escape_cell(fit(row["verdict"]))
        mark = " †" if row["result"] in rebuilt else ""
        out.append(f"| [{row['name']}](#{row['result']}) | {escape_cell(row['statement'])}{mark} | "
                   f"{'**' + shown + '**' if row['category'] == 'failed' else shown} | "
                   f"{escape_cell(fit(row['evidence']))} | "
                   f"{escape_cell(fit(row['discrepancies']))} |")
    return out


def figure_lines(figures: Sequence[tuple[str, str]]) -> list[str]:
    """Embedded figures (title, relative path)."""
    if not figures:
        return []
    out, said = ["## Figures", ""], set()
    for title, path in figures:
        caption = figure_caption(path)
        if caption and caption not in said:  # a caption shared by several figures comes once, first
            out += [caption, ""]
            said.add(caption)
        out += [f"**{title}**", "", f"![{title}]({path})", ""]
    return out


def figure_caption(path: str) -> str:
    """One sentence saying what a figure shows (by its file name)."""
    name = Path(path).name
    if name.startswith("tiling-"):
        return ("The certified tilings: each rectangle is a leaf of a certificate over (log10 d, log10 eps); its colour is "
                "log10 of the smallest certified lower end of a claim's margin on it. A four-axis "
                "certificate (u = eta1/sqrt(d), v = eta2_min/eta2) is projected: each point shows the "
                "smallest margin over every u, v above it. A -tail certificate covers eps in (0, 1e-6]: "
                "its vertical axis is tau = 1/(1 - ln eps), and tau = 0 is the limit eps -> 0.")
    return {"blueprint.png": "Each result's proof condensed to one node, with the engine's lemmas and "
                             "the steps the paper's text lost (open); an arrow points from a result "
                             "to what its proof uses; the colour is the standing in this run "
                             "(`verify ledger` prints every obligation; proofs/blueprint/ has one "
                             "figure per result).",
            "floors.png": "The smallest floor each search found against d (circles: search, an upper "
                          "bound of the true infimum; crosses: the value at a found point certified by "
                          "Arb, where the result has such a check), with each result's configured "
                          "constant as a dashed line.",
            "plans.png": "At the contrast's cases: the risk the three-phase plan reaches, and for each "
                         "simpler plan the smallest risk a search found (an upper bound of its "
                         "infimum); the dotted line is eps.",
            "thm2-risk.png": "Theorem 2's plan on the exact population loss at the boundary schedule "
                             "(eta1 = sqrt(d), eta2 and T at their minima): the risk reached against "
                             "eps, one line per d, with the line risk = eps."}.get(name, "")


def _result_section(result: Result, result_rows: list[dict], reports: Sequence[CheckReport],
                    appendix: Appendix, proof: Sequence[str] = ()) -> list[str]:
    lines = [f'<a id="{result.id}"></a>', "", f"## {result.name} (`{result.id}`)", "",
             f"Statement: {result.statement}. Hypotheses: {result.hypotheses}. "
             f"Document: [{result.document}]({result.document}).", ""]
    if not result_rows:
        return lines + ["**Not checked yet.**", ""]
    if proof:
        lines += ["Its proof (each obligation: its standing in this run, what discharges it, its "
                  "claim and range; `verify ledger " + result.id + "` prints the same tree):", "",
                  "```text", *proof, "```", ""]
    lines += ["| check | step | claim | cases | passed | worst margin | worst case | evidence | status |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in result_rows:
        mark = " †" if row["reconstructed"] else ""
        checked = f" (checked on {row['range']})" if row["range"] and row["range"] not in row["claim"] else ""
        evidence = row["evidence"] + (" (over a box)" if row["evidence"] == "certified" and row["reach"] == "range"
                                      else " (at points)" if row["evidence"] == "certified" else "")
        lines.append(f"| `{row['check']}`{mark} | {escape_cell(row['step'])} | "
                     f"{appendix.cell(row['claim'] + checked, row['check'] + ', claim')} | {row['cases']} | "
                     f"{passed_text(row)} | {row['worst_margin']} | "
                     f"{appendix.cell(worst_text(row), row['check'] + ', worst case')} | "
                     f"{evidence} | {status_text(row)} |")
    lines.append("")
    for exhibit, body in exhibits([result], reports):
        lines += [f"### {exhibit.title} (`{exhibit.check}`)", "", exhibit.caption, "",
                  "| " + " | ".join(header for _, header in exhibit.columns) + " |",
                  "|" + "---|" * len(exhibit.columns)]
        lines.extend("| " + " | ".join(escape_cell(fit(c)) for c in row) + " |" for row in body)
        lines.append("")
    return lines


def _discrepancy_lines(reports: Sequence[CheckReport]) -> list[str]:
    discrepancies = [rep for rep in reports if rep.discrepancy]
    lines = ["## Discrepancies", ""]
    if not discrepancies:
        return lines + ["None documented.", ""]
    for rep in discrepancies:
        d = rep.discrepancy
        expected = [o for o in rep.failed if rep.in_scope(o)]
        scoped = [o for o in rep.counted if rep.in_scope(o)]
        text = (f"- `{rep.check.id}` (expected to fail where {d.scope}): {d.reason} "
                f"Failing as documented: {len(expected)} of the {len(scoped)} cases in scope")
        if expected:
            first = min(expected, key=lambda o: o.case)
            text += f"; e.g. {first.case}: {fit(first.detail)}"
        if rep.not_reproduced:
            text += f". NOT REPRODUCED at {', '.join(o.case for o in rep.not_reproduced)}"
        if rep.unexpected:
            text += f". FAILS OUTSIDE ITS SCOPE at {', '.join(o.case for o in rep.unexpected)}"
        lines.append(text + ".")
    return lines + [""]


def _calibration_lines(reports: Sequence[CheckReport]) -> list[str]:
    calibrated = [(rep, cal) for rep in reports for cal in rep.result.calibrations_for(rep.check.id)]
    if not calibrated:
        return []
    lines = ["## Measured constants: in-sample and held-out cases", "",
             "| check | constant | calibrated on | in-sample passed | held-out passed |",
             "|---|---|---|---|---|"]
    for rep, cal in calibrated:
        inside, total = rep.calibration_passed(cal)
        held = f"{len(rep.passed)}/{len(rep.held_out)}" + (
            " (a proof over its range: every case counted)" if rep.proves_range else "")
        lines.append(f"| `{rep.check.id}` | `{cal.constant}` | {escape_cell(cal.scope)} | {inside}/{total} | "
                     f"{held} |")
    return lines + [""]


def _constant_lines(reports: Sequence[CheckReport], constants: Mapping[str, Constant]) -> list[str]:
    lines = ["## Constants", "",
             "| key | value | domain | meaning | source | used by (checks that read it in this run) |",
             "|---|---|---|---|---|---|"]
    readers = used_by(reports)
    for key, c in sorted(constants.items()):
        domain = c.domain.text if c.domain else "-"
        lines.append(f"| `{key}` | {c.text} | {domain} | {escape_cell(fit(c.meaning))} | "
                     f"{escape_cell(fit(c.source))} | {compact(readers.get(key, [])) or '-'} |")
    return lines + [""]


def provenance_markdown(provenance: Mapping[str, str]) -> list[str]:
    """The report's last section: what produced it, one item per line."""
    return ["## Provenance", "",
            "What produced this report: the code, the constants, the settings and the machine "
            "(`verify --version` prints the same items).", "",
            *(f"- {name}: `{value}`" for name, value in provenance.items()), ""]


def markdown(reports: Sequence[CheckReport], results: Sequence[Result],
             constants: Mapping[str, Constant], profile: Profile, command: str = "verify all",
             see_also: Sequence[str] = (), provenance: Mapping[str, str] | None = None,
             folder: Path | None = None, figures: Sequence[tuple[str, str]] = (),
             graph: Mapping[str, Obligation] | None = None) -> str:
    """The markdown report; ``see_also`` lines (links to companion reports) follow the legend,
    ``figures`` (title, path relative to the report) are embedded, the ``provenance`` record
    (:mod:`verify.report.provenance`) closes it; ``folder`` is where the report is written (the
    recorded Section 5 claims are read beside it); ``graph`` is the proof ledger (every result's
    obligations), from which the verdicts are composed and each result's proof is drawn."""
    by_result: dict[str, list[dict]] = {}
    for row in rows(reports):
        by_result.setdefault(row["result"], []).append(row)
    recorded = recorded_claims(folder) if folder is not None else None
    appendix = Appendix()
    lines = ["# Theorem report", "",
             f"Generated by `{command}` (profile `{profile.value}`). The checks of this run: "
             f"**{overall(reports)}** (exit code {exit_code(reports)}"
             + ("; the recorded Section 5 claims named below do not enter it"
                if recorded and not any(r.result.id == "experiments" for r in reports) else "")
             + "). " + headline(reports, results, recorded, graph), "",
             SUMMARY_LEGEND, "",
             *summary_lines(reports, results, graph), "",
             READING.format(kinds=kinds_text(), exit_meaning=EXIT_MEANING), "",
             ledger_text(reports), "",
             *(line for text in see_also for line in (text, "")),
             *figure_lines(figures)]
    trees = proof_ledger.trees(graph, results, reports) if graph is not None else {}
    for result in results:
        lines += _result_section(result, by_result.get(result.id, []), reports, appendix,
                                 trees.get(result.id, ()))
    lines += ["## Section 5", "", section5_line(reports, recorded), ""]
    lines += _discrepancy_lines(reports) + _calibration_lines(reports) + _constant_lines(reports, constants)
    lines += appendix.lines()
    if provenance:
        lines.extend(provenance_markdown(provenance))
    return "\n".join(lines)
