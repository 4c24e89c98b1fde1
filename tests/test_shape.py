"""The shape of the code (ARCHITECTURE.md): who may import whom, no private names across modules,
no source file above 600 lines.  Read from the source with ``ast``; nothing is imported."""
import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERIFY = ROOT / "verify"
MAX_LINES = 600

# what a results module may import from the package (ARCHITECTURE.md, "Layers")
# (verify.certify: branch and bound over boxes of (d, eps), a search with certified answers;
# verify.experiments: the finite-sample training of Section 5, an engine for the experiments' claims)
# verify.results.plan_schedule: the three-phase plan's schedule and case grid, which Theorem 2 and
# Corollary 1 share (one reconstruction of the lost step sizes; not a result); verify.results.insertion:
# the words grouped by their background (the insertion pairing), which the every-d arguments of
# Propositions 2 and 4 share (not a result)
RESULTS_MAY_IMPORT = ("verify.checks", "verify.ledger", "verify.results.common", "verify.engine", "verify.search",
                      "verify.certify", "verify.experiments", "verify.results.plan_schedule",
                      "verify.results.lemmas", "verify.results.insertion")
# a result split over files imports its own parts (cor1_samples: Corollary 1's finite-sample
# checks, merged into cor1.RESULT); a part never imports its result, nor another result
PARTS = {"cor1": ("verify.results.cor1_samples",),
         "thm1": ("verify.results.thm1_steps", "verify.results.thm1_step3"),
         "prop2": ("verify.results.prop2_every_d",),
         "prop3": ("verify.results.prop3_every_d",),
         "prop4": ("verify.results.prop4_every_d",)}
# contrast compares the results: it reaches them through the registry, never module by module
REGISTRY_NAMES = {"REGISTRY", "by_id"}
# known departures, each a strict xfail so that fixing one turns its test red until removed here
KNOWN: dict[str, str] = {}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = here.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(path: Path, here: str | None = None) -> list[tuple[str, str | None, int]]:
    """(module, imported name or None, line) for every import of a ``verify`` module in ``path``
    (``from . import prop2`` gives ("verify.results.prop2", None)); ``here`` is the module's
    dotted name (default: from its place under the repository)."""
    here = here or _module_name(path)
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno) for a in node.names if a.name.startswith("verify")]
        elif isinstance(node, ast.ImportFrom):
            mod = _absolute(node, here, path.name == "__init__.py")
            if not mod.startswith("verify"):
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                is_module = (VERIFY.parent / (sub.replace(".", "/") + ".py")).exists() or (
                    VERIFY.parent / sub.replace(".", "/")).is_dir()
                out.append((sub, None, node.lineno) if is_module else (mod, a.name, node.lineno))
    return out


def _allowed(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in RESULTS_MAY_IMPORT)


RESULT_FILES = sorted(p for p in (VERIFY / "results").glob("*.py")
                      if p.name not in ("__init__.py", "common.py"))


def test_the_checker_sees_a_forbidden_import(tmp_path):
    """The rule itself can fail: a results module importing another one is caught."""
    probe = tmp_path / "probe.py"
    probe.write_text("from . import prop3\nfrom .common import log_grid\nfrom ..search import decisive\n")
    found = [m for m, _, _ in imports(probe, "verify.results.probe") if not _allowed(m)]
    assert found == ["verify.results.prop3"]
    # a result imports its own parts; a part does not import its result (nor another result)
    part = tmp_path / "cor1_samples.py"
    part.write_text("from . import cor1\nfrom .plan_schedule import schedule\n")
    found = [m for m, _, _ in imports(part, "verify.results.cor1_samples")
             if not _allowed(m) and m not in PARTS.get("cor1_samples", ())]
    assert found == ["verify.results.cor1"]


@pytest.mark.parametrize("path", RESULT_FILES, ids=lambda p: p.stem)
def test_results_modules_import_only_checks_common_engine_search(path, request):
    if path.stem in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[path.stem], strict=True))
    bad = []
    for module, name, line in imports(path):
        if _allowed(module) or module in PARTS.get(path.stem, ()):
            continue
        if path.stem == "contrast" and module == "verify.results" and name in REGISTRY_NAMES:
            continue
        bad.append(f"{path.name}:{line} imports {module}" + (f".{name}" if name else ""))
    assert not bad, "\n".join(bad)


# every package of verify and what it may import from verify (ARCHITECTURE.md, "Layers"); a module
# may always import inside its own package.  The arrows point down: cli presents everything;
# report and regression present runs; results use the tools below them; run/ (executors,
# journal, outcome store, runner) is infrastructure that knows no result; the engine knows no
# claim; the checker of certificates shares nothing with the code that wrote them.
VOCABULARY = ("verify.checks", "verify.constants", "verify.ledger", "verify.status", "verify._version")
LAYERS: dict[str, tuple[str, ...]] = {
    "verify.cli": ("verify",),
    "verify.report": ("verify.run", "verify.regression", *VOCABULARY),
    "verify.regression": VOCABULARY,
    "verify.results": (*RESULTS_MAY_IMPORT, "verify.run", *VOCABULARY),
    "verify.certify": ("verify.engine", "verify.run", "verify.checker", *VOCABULARY),
    "verify.checker": (),  # and nothing but python-flint and the standard library (below)
    "verify.experiments": ("verify.engine", "verify.run", "verify.search", *VOCABULARY),
    "verify.run": VOCABULARY,
    "verify.search": (),
    "verify.engine": (),
    "verify.checks": ("verify.constants", "verify.ledger", "verify.status"),
    "verify.ledger": ("verify.status",),  # the proof ledger's vocabulary and composition
    "verify.status": (),  # a check's status in a run: a leaf
    "verify.constants": (),
}
# known departures (strict xfails: fixing one turns its test red until it is removed here)
KNOWN_LAYERS: dict[str, str] = {}


def _layer(module: str) -> str | None:
    """The entry of LAYERS a module belongs to (the longest matching prefix)."""
    found = [k for k in LAYERS if module == k or module.startswith(k + ".")]
    return max(found, key=len, default=None)


def _within(module: str, allowed: tuple[str, ...]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def layer_violations(package: str) -> list[str]:
    """Imports of the modules of ``package`` that its row of LAYERS does not allow."""
    bad = []
    for path in sorted(VERIFY.rglob("*.py")):
        here = _module_name(path)
        if _layer(here) != package:
            continue
        for module, name, line in imports(path):
            if _within(module, (package, *LAYERS[package])) or module == "verify":
                continue
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}" + (f".{name}" if name else ""))
    return bad


def test_every_module_of_verify_belongs_to_a_layer():
    orphans = [str(p.relative_to(ROOT)) for p in sorted(VERIFY.rglob("*.py"))
               if _layer(_module_name(p)) is None and _module_name(p) not in
               ("verify", "verify.__main__", "verify._version")]
    assert not orphans, orphans


def test_the_layer_rule_sees_an_upward_import(tmp_path, monkeypatch):
    probe = VERIFY / "run" / "zz_probe.py"
    probe.write_text("from ..results import REGISTRY\n")
    try:
        assert layer_violations("verify.run") == ["verify/run/zz_probe.py:1 imports verify.results.REGISTRY"]
    finally:
        probe.unlink()


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_no_package_imports_upward(package, request):
    if package in KNOWN_LAYERS:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_LAYERS[package], strict=True))
    bad = layer_violations(package)
    assert not bad, "\n".join(bad)


def test_the_top_level_stays_small():
    """A few shared modules beside the subpackages (issue 31: the folders show the layers)."""
    modules = sorted(p.name for p in VERIFY.glob("*.py"))
    assert len(modules) <= 8, modules


def _aliases(tree: ast.AST) -> set[str]:
    """Local names bound to verify modules (``from ..engine import general`` binds general)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                names.add((a.asname or a.name).split(".")[0])
    return names


def test_no_module_imports_or_reaches_another_modules_private_names():
    bad = []
    for path in sorted(VERIFY.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for module, name, line in imports(path):
            if name and name.startswith("_") and not name.startswith("__"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}.{name}")
        modules = {m.rsplit(".", 1)[-1] for m, n, _ in imports(path) if n is None}
        local = _aliases(tree) & modules
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in local and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)


def test_no_source_file_above_600_lines():
    too_long = []
    for path in sorted(VERIFY.rglob("*.py")):
        if path == VERIFY / "engine" / "general.py" and path.is_file():
            continue  # 1,434 lines today: the engine split (issue 13.1) makes it a package
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not too_long, "\n".join(too_long)


# the general engine's one-call forms (d, s, alpha, ..., dps) serve notebooks and interactive use;
# the package itself builds a GeneralAttention once and passes it (issue 13)
CONVENIENCE = {"evaluate", "loss", "loss_and_grad", "gradient_terms", "moments", "solve_output",
               "best_output", "loss_and_grad_float"}


def _convenience_calls(tree: ast.AST) -> list[str]:
    return [f"{node.func.value.id}.{node.func.attr}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id in ("general", "G")
            and node.func.attr in CONVENIENCE]


def test_the_convenience_checker_sees_a_call():
    assert _convenience_calls(ast.parse("general.loss(3, 0, a, b, 15)")) == ["general.loss"]


def test_package_code_uses_the_state_passing_general_api():
    offenders = {}
    for path in VERIFY.rglob("*.py"):
        if "general" in path.relative_to(VERIFY).parts[:2]:
            continue
        found = _convenience_calls(ast.parse(path.read_text()))
        if found:
            offenders[str(path.relative_to(ROOT))] = found
    assert not offenders, offenders


# the independent checker of certificates (proofs/checker.md): its trusted base is its own
# package, python-flint and the standard library, nothing of the engine that wrote the proofs
CHECKER = VERIFY / "checker"
CHECKER_MAY_IMPORT = {"flint", "__future__"}


def checker_imports(path: Path) -> list[str]:
    """Top-level modules a checker file imports, other than its own package (relative imports
    inside ``verify.checker``) and the standard library."""
    tree = ast.parse(path.read_text(), str(path))
    here = _module_name(path) if path.is_relative_to(ROOT) else "verify.checker.probe"
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [_absolute(node, here, path.name == "__init__.py")]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if name == "verify.checker" or name.startswith("verify.checker."):
                continue
            if top in sys.stdlib_module_names or top in CHECKER_MAY_IMPORT:
                continue
            bad.append(f"{path.name}:{node.lineno} imports {name}")
    return bad


def test_the_checker_rule_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import math\nfrom flint import arb\nfrom .model import nu\n"
                     "from ..engine import expectations\nimport sympy\nimport mpmath.libmp\n")
    assert checker_imports(probe) == ["probe.py:4 imports verify.engine", "probe.py:5 imports sympy",
                                      "probe.py:6 imports mpmath.libmp"]


def test_the_checker_imports_only_itself_flint_and_the_standard_library():
    files = sorted(CHECKER.glob("*.py"))
    assert files
    bad = [b for path in files for b in checker_imports(path)]
    assert not bad, "\n".join(bad)


def test_the_checkers_trusted_base_stays_within_its_stated_size():
    """proofs/checker.md states the trusted base's line count ("N lines in all"): the package
    may not grow past it unnoticed."""
    import re

    text = (ROOT / "proofs" / "checker.md").read_text()
    stated = int(re.search(r"([\d,]+) lines in all", text).group(1).replace(",", ""))
    actual = sum(len(p.read_text().splitlines()) for p in CHECKER.glob("*.py"))
    # 1,500 (issue 37): the checker's own routes for the new certificate kinds (the lemma for
    # every d >= d0, proofs/checker.md section 12); 1,800: it judges Proposition 3's cube leaves
    # over their boxes itself (section 15) instead of refusing them; 1,900: the sharp leaf at
    # alpha = 0 (signs of derivatives) and the cones' weak duality, the last kinds it refused;
    # 2,020: the journal of a long check (section 18), so that a run of hours resumes, with the
    # checks a forger's review asked for; 2,130: the centred form of second order of the cube
    # leaves (section 15), which judges 2 to 5 times fewer pieces; 2,175: the Riemann sums of
    # section 15 over every cell at once (``cube_box.Cells``), the same balls in half the CPU
    assert actual <= stated <= 2175, f"verify/checker has {actual} lines, the document says {stated}"


def _certify_imports() -> dict[str, set[str]]:
    """Each module of verify/certify and the modules of verify/certify it imports (anywhere)."""
    out = {}
    for path in (ROOT / "verify" / "certify").glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update([node.module.split(".")[0]] if node.module else
                            [a.name for a in node.names])
        out[path.stem] = deps
    return out


def test_certify_has_no_import_cycle_and_its_groups_are_a_leaf():
    graph = _certify_imports()

    def reaches(start: str, node: str, seen: set) -> bool:
        return any(m == start or (m in graph and m not in seen and reaches(start, m, seen | {m}))
                   for m in graph[node])

    assert [m for m in graph if reaches(m, m, {m})] == []
    assert graph["groups"] == set()
    graph["groups"].add("boxes")  # the test's own mutation: a leaf that imports shows as a cycle
    assert "groups" in [m for m in graph if reaches(m, m, {m})]
