"""axe-core (the accessibility rules engine) for browser tests, as shipped inside the
``axe-playwright-python`` package (the ``browser`` extra), so CI needs no npm and the checks never skip."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any


def axe_script() -> Path:
    """The path of the packaged ``axe.min.js``; a missing package is an error, not a skip (issue 44.7:
    a check that skips when a tool is absent never ran in CI)."""
    script = Path(str(resources.files("axe_playwright_python") / "axe.min.js"))
    if not script.is_file():
        raise FileNotFoundError(f"axe-core is missing from axe-playwright-python: {script}")
    return script


# Serious and critical violations only (WCAG 2.x A and AA, and 2.2's): what a player cannot get past.
RUN_AXE = """async () => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}});
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => ({target: n.target.join(' '), summary: n.failureSummary}))}));
}"""


def serious_violations(page: Any, script: Path | None = None) -> list[dict[str, Any]]:
    """Runs axe-core in ``page``. The script is evaluated over the DevTools protocol rather than added as a
    <script> tag, so the page's Content-Security-Policy (script-src 'self') does not block it."""
    source = (script or axe_script()).read_text(encoding="utf-8")
    page.evaluate(source)
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found
