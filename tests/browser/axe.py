"""axe-core (the accessibility rules engine) for browser tests: fetched from the npm registry once, into a
cache folder outside the repository, and run inside the page."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

AXE_VERSION = "4"


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "harbormaster" / "axe-core"


def axe_script() -> Path | None:
    """The path of ``axe.min.js``, installed with npm on first use; ``None`` when npm is missing or the
    registry cannot be reached (the caller skips, saying why)."""
    folder = cache_folder()
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if script.exists():
        return script
    npm = shutil.which("npm")
    if npm is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(folder), f"axe-core@{AXE_VERSION}", "--no-audit", "--no-fund"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    return script if done.returncode == 0 and script.exists() else None


# Serious and critical violations only (WCAG 2.x A and AA, and 2.2's): what a player cannot get past.
RUN_AXE = """async () => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}});
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => ({target: n.target.join(' '), summary: n.failureSummary}))}));
}"""


def serious_violations(page: Any, script: Path) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(script))
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found
