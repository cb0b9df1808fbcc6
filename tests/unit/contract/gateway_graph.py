"""The gateway's import graph in figures (issue 46): ``python -m tests.unit.contract.gateway_graph [--detail]``.

A *part* is one of the gateway's packages (``api``, ``sockets``, ``feeds``, ``access``, ``wire``) or one of
its top-level modules (``app``, ``server``, ``commands``, ``context``, ``security_headers``). The parts sit
on the layers of :data:`LAYERS` (top first, as ``pyproject.toml``'s import-linter contract lists them): an
arrow between two parts points *down* when its target's layer is lower, *back up* when it is higher, and
*sideways* when both are on one layer (siblings there must not import each other). A *circle* is a set of
modules (or parts) each reachable from the others (a strongly connected component of more than one).

The graph is grimp's, the one import-linter checks: every import, those under ``TYPE_CHECKING`` too.
``docs/architecture.md`` quotes these figures; ``test_gateway_layers.py`` checks the quoted ones.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import msgspec

ROOT = Path(__file__).resolve().parents[3]
GATEWAY = "services.gateway"
PACKAGES = ("api", "sockets", "feeds", "access", "wire")
LAYERS: tuple[tuple[str, ...], ...] = (
    ("app", "server"),
    ("api",),
    ("sockets",),
    ("commands",),
    ("context",),
    ("feeds", "access", "security_headers"),
    ("wire",),
)
"""The gateway's layers, top first: a part imports only parts on lower layers."""


class Figures(msgspec.Struct, kw_only=True):
    """What ``docs/architecture.md`` says of the graph."""

    modules: int
    lines: int
    parts: int
    arrows: int
    """Ordered pairs of parts (a, b) where some module of a imports one of b."""
    back_up: int
    sideways: int
    both_ways: int
    """Pairs of parts that import each other."""
    part_circles: int
    module_circles: int


def part_of(module: str) -> str:
    """The part a module of the gateway belongs to (``""`` for the package itself)."""
    rest = module.removeprefix(GATEWAY).lstrip(".").split(".")
    return rest[0]


def layer_of(part: str) -> int:
    """The part's layer, counted from the bottom (0); parts on no layer count as the top's."""
    for depth, layer in enumerate(reversed(LAYERS)):
        if part in layer:
            return depth
    return len(LAYERS)


def imports(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Each gateway module's imports of other gateway modules (the package ``services.gateway`` left out:
    its ``__init__`` imports nothing)."""
    modules = {m for m in graph.modules if m.startswith(GATEWAY + ".")}
    return {m: {i for i in graph.find_modules_directly_imported_by(m) if i in modules} for m in modules}


def part_arrows(edges: Mapping[str, Iterable[str]]) -> Counter[tuple[str, str]]:
    """Module imports between two parts, counted per ordered pair of parts."""
    counted: Counter[tuple[str, str]] = Counter()
    for module, targets in edges.items():
        for target in targets:
            if part_of(module) != part_of(target):
                counted[(part_of(module), part_of(target))] += 1
    return counted


def circles(edges: Mapping[str, Iterable[str]]) -> list[set[str]]:
    """Strongly connected components of more than one node (Tarjan's, iterative over a small graph)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def measure(root: Path = ROOT) -> tuple[Figures, dict[str, set[str]]]:
    """The figures of the gateway under ``root`` (a checkout), and its module graph."""
    sys.path.insert(0, str(root))
    try:
        graph = grimp.build_graph("services", cache_dir=None)
    finally:
        sys.path.remove(str(root))
    edges = imports(graph)
    arrows = part_arrows(edges)
    pairs = set(arrows)
    part_edges: dict[str, set[str]] = {}
    for a, b in pairs:
        part_edges.setdefault(a, set()).add(b)
    lines = sum(
        (root / (m.replace(".", "/") + ".py")).read_text().count("\n")
        for m in edges
        if (root / (m.replace(".", "/") + ".py")).exists()
    )
    figures = Figures(
        modules=len(edges),
        lines=lines,
        parts=len({part_of(m) for m in edges}),
        arrows=len(pairs),
        back_up=sum(1 for a, b in pairs if layer_of(b) > layer_of(a)),
        sideways=sum(1 for a, b in pairs if layer_of(b) == layer_of(a)),
        both_ways=sum(1 for a, b in pairs if (b, a) in pairs) // 2,
        part_circles=len(circles(part_edges)),
        module_circles=len(circles(edges)),
    )
    return figures, edges


def main(argv: list[str]) -> None:
    root = Path(next((a for a in argv if not a.startswith("-")), ROOT))
    figures, edges = measure(root)
    out = sys.stdout
    out.write(f"{msgspec.json.encode(figures).decode()}\n")
    if "--detail" in argv:
        for (a, b), n in sorted(part_arrows(edges).items()):
            way = (
                "back up"
                if layer_of(b) > layer_of(a)
                else "sideways"
                if layer_of(b) == layer_of(a)
                else "down"
            )
            out.write(f"{a:>16} -> {b:<16} {n:>3} imports  {way}\n")
        for circle in circles(edges):
            out.write(f"circle: {sorted(circle)}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
