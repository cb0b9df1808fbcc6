"""The gateway in layers (issue 46): no import arrow points back up and none forms a circle, against the same
layers import-linter enforces, and ``docs/architecture.md`` says so with today's figures."""

from __future__ import annotations

import re
import tomllib

from tests.unit.contract.gateway_graph import LAYERS, ROOT, circles, layer_of, measure, part_arrows, part_of


def _contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (gateway,) = [c for c in contracts if c.get("containers") == ["services.gateway"]]
    return list(gateway["layers"])


def test_the_measured_layers_are_the_enforced_ones() -> None:
    assert _contract_layers() == [" | ".join(layer) for layer in LAYERS]


def test_every_arrow_points_down_and_no_circle_forms() -> None:
    figures, edges = measure()
    wrong = [(a, b) for a, b in part_arrows(edges) if layer_of(b) >= layer_of(a)]
    assert wrong == []
    assert circles(edges) == []
    assert (figures.back_up, figures.sideways, figures.both_ways, figures.part_circles) == (0, 0, 0, 0)
    assert {part_of(m) for m in edges} <= {part for layer in LAYERS for part in layer}  # each part on a layer


def test_the_architecture_page_states_the_figures_after() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    row = re.search(r"^\| after[^|]*\|(.*)$", text, re.MULTILINE)
    assert row is not None, "docs/architecture.md has no 'after' row of the gateway's figures"
    cells = [cell.strip() for cell in row.group(1).split("|")]
    figures, _ = measure()
    # modules and lines grow with every endpoint; the parts, arrows back up, pairs and circles must not
    assert cells[2:8] == [
        str(figures.parts),
        str(figures.arrows),
        str(figures.back_up),
        str(figures.both_ways),
        str(figures.part_circles),
        str(figures.module_circles),
    ]
