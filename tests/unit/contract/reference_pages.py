"""What the reference-page tests share: which pages are reference, and how a page's claim is read."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"


def reference_pages() -> list[Path]:
    """Every page a user reads as how things are: the README, ``docs/`` but its history, the gateway's and the
    deployment's pages, the games' READMEs."""
    pages = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "services/gateway/README.md"]
    return pages + sorted((ROOT / "deploy").glob("*.md")) + sorted((ROOT / "domain").glob("*/README.md"))


def read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def claim(page: str, pattern: str) -> tuple[str, ...]:
    """The groups of ``pattern``'s one match in ``page`` (whitespace in the page counts as one space)."""
    found = re.findall(pattern, " ".join(read(page).split()))
    assert len(found) == 1, f"{page} no longer says {pattern!r} once: update the page or this test"
    return found[0] if isinstance(found[0], tuple) else (found[0],)
