"""The proof ledger drawn as a blueprint: each obligation a node coloured by its standing, an
arrow from each node to the nodes it uses (as Lean blueprint projects draw their proofs).

networkx holds the graph and lays it out (``multipartite_layout`` over the layers of a
topological order: a node sits one layer above the deepest node it uses), matplotlib draws it on
its Agg canvas with its default style and no metadata, so the same graph gives the same bytes.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from ..ledger import Level, Obligation, Piece, evaluate, verdict
from ..ledger.stated import as_stated
from .proof_ledger import best_level

COLOURS = {Level.PROVED: "#2e7d32", Level.HAND: "#9ccc65", Level.ENGINE: "#d4e157",
           Level.NUMERIC: "#ffee58", Level.STATISTICAL: "#ffca28", Level.SEARCH: "#ffa726",
           Level.OPEN: "#e53935", Level.FAILED: "#6a1b9a", Level.NOT_RUN: "#bdbdbd"}
PART = "#4db6ac"  # proved over part of the node's range
DPI = 90


def colour(ob: Obligation, pieces: list[Piece]) -> str:
    """Dark green where the node is proved over its whole range, teal over part of it, else the
    colour of the strongest evidence it has."""
    category = verdict(ob, pieces).category
    if category == "proved":
        return COLOURS[Level.PROVED]
    if category == "proved in part":
        return PART
    return COLOURS[Level.FAILED if category == "failed" else best_level(pieces)]


def reachable(graph: Mapping[str, Obligation], roots: Sequence[str]) -> list[str]:
    """The nodes under ``roots`` (the roots included), in the graph's order."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(graph[node].uses)
    return [n for n in graph if n in seen]


def _layers(uses: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Each node's layer: 0 for a node that uses nothing, else one more than its highest use."""
    layer: dict[str, int] = {}

    def height(node: str) -> int:
        if node not in layer:
            layer[node] = 1 + max((height(u) for u in uses[node]), default=-1)
        return layer[node]

    for node in uses:
        height(node)
    return layer


def render(uses: Mapping[str, Sequence[str]], colours: Mapping[str, str], labels: Mapping[str, str],
           path: Path, title: str) -> None:
    """Draw a graph (node -> the nodes it uses) as a PNG: layered by networkx, each node
    filled with its colour, a legend of the colours used."""
    import matplotlib
    import networkx as nx
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    layers = _layers(uses)
    g = nx.DiGraph()
    for node in uses:
        g.add_node(node, layer=layers[node])
    g.add_edges_from((node, used) for node, targets in uses.items() for used in targets)
    rows: dict[int, list[str]] = {}  # each layer's nodes in name order: networkx's own grouping
    for node in sorted(uses):  # of a "layer" attribute is a set, laid out in hash order
        rows.setdefault(layers[node], []).append(node)
    pos = nx.multipartite_layout(g, subset_key=rows, align="horizontal", scale=1.0)
    widest = max(sum(1 for n in uses if layers[n] == k) for k in set(layers.values()))
    width, height = max(6.0, 1.15 * widest), max(3.5, 1.3 * (max(layers.values()) + 1) + 1.0)
    with matplotlib.rc_context(matplotlib.rcParamsDefault):
        fig = Figure(figsize=(width, height), dpi=DPI)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.01, 0.08, 0.98, 0.84))
        fill = [colours[n] for n in g.nodes]
        nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=8, edge_color="#9e9e9e",
                               node_size=900, width=0.8)
        nx.draw_networkx_nodes(g, pos, ax=ax, node_color=fill, node_size=900, edgecolors="#424242",
                               linewidths=0.6)
        nx.draw_networkx_labels(g, pos, labels=dict(labels), ax=ax, font_size=6.5)
        ax.set_axis_off()
        ax.set_title(title, fontsize=10)
        used = set(fill)
        legend = [(COLOURS[Level.PROVED], "proved over its whole range"), (PART, "proved over part of it")]
        legend += [(COLOURS[level], level.words) for level in sorted(COLOURS, reverse=True)
                   if level is not Level.PROVED]
        handles = [Patch(color=c, label=text) for c, text in legend if c in used]
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5), fontsize=7,
                   frameon=False)
        fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


def draw(graph: Mapping[str, Obligation], roots: Sequence[str], standing: Mapping[str, list[Piece]],
         path: Path, title: str, strip: str = "") -> None:
    """The blueprint of every obligation under ``roots`` as a PNG at ``path``; ``strip`` is a
    prefix left out of the labels (a result's own id in its own figure)."""
    nodes = reachable(graph, roots)
    render({n: graph[n].uses for n in nodes}, {n: colour(graph[n], standing[n]) for n in nodes},
           {n: _label(n, strip) for n in nodes}, path, title)


def condensed(graph: Mapping[str, Obligation], results: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The paper at a glance: each result one node, using the other results, the engine's
    lemmas and its own open obligations that its proof reaches (through its own nodes only)."""
    shown = set(results) | {n for n in graph if not any(n.startswith(r + ".") or n == r for r in results)}
    out: dict[str, tuple[str, ...]] = {}
    for result in results:
        found: list[str] = []
        stack, seen = list(graph[result].uses), set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if node in shown or graph[node].discharge.value == "open":
                found.append(node)
                if node in shown:
                    continue
            stack.extend(graph[node].uses)
        out[result] = tuple(sorted(set(found)))
    todo = sorted({n for targets in out.values() for n in targets} - set(out))  # not by hash
    while todo:  # the shown nodes they use, at any depth (a lemma that uses another)
        node = todo.pop(0)
        if node not in out:
            out[node] = tuple(u for u in graph[node].uses if u in shown)
            todo += [u for u in out[node] if u not in out]
    return out


def _label(node: str, strip: str) -> str:
    """A node's id as its label, wrapped at its dots and hyphens to fit a node."""
    text = node[len(strip) + 1:] if strip and node.startswith(strip + ".") else node
    parts, line = [], ""
    for chunk in text.replace("-", "-\u0000").replace(".", ".\u0000").split("\u0000"):
        if len(line) + len(chunk) > 11 and line:
            parts.append(line)
            line = ""
        line += chunk
    return "\n".join(parts + [line])


def paper(graph: Mapping[str, Obligation], results: Sequence[str], facts, path: Path) -> None:
    """The whole paper's blueprint, condensed (:func:`condensed`), with the run's standings."""
    standing = evaluate(graph, facts)
    uses = condensed(graph, results)
    render(uses, {n: colour(graph[n], standing[n]) for n in uses}, {n: _label(n, "") for n in uses},
           path, "The proof ledger: each result, the engine's lemmas and the open steps, in this run")


def per_result(graph: Mapping[str, Obligation], result: str, folder: Path) -> Path:
    """One result's blueprint as declared (every check assumed to pass): proofs/blueprint/<id>.png,
    with the node of its statement as the paper words it where it has one."""
    path = folder / f"{result}.png"
    roots = [result] + [node for node in (as_stated(result),) if node in graph]
    draw(graph, roots, evaluate(graph, None), path,
         f"{result}: its proof's obligations as declared (statuses if every check passes)", strip=result)
    return path
