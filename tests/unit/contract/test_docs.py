"""The documents tell the truth about the tree: every repository path a ``*.md`` file names exists, and every
command line of the README's code blocks is run by the journey suite or named there with its reason."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.journey.readme_plan import README, plan

ROOT = Path(__file__).resolve().parents[3]

MADE_BY_RUNNING = (".venv", "build", ".harbormaster", "node_modules", "game.jsonl", "docs/screenshots/")
"""Paths that a command makes (a virtual environment, a build, data, an export): named, never committed."""

PATH_LIKE = re.compile(r"^\.?[\w.-]+(/[\w.@-]*)*(\.\w+)?/?$")
FILE_ENDINGS = (
    ".py",
    ".md",
    ".js",
    ".css",
    ".html",
    ".lua",
    ".toml",
    ".yaml",
    ".yml",
    ".json",
    ".txt",
    ".svg",
)


def _tracked() -> list[str]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if line]


def _markdown_files() -> list[Path]:
    return [ROOT / name for name in _tracked() if name.endswith(".md")]


def _named_paths(text: str) -> list[str]:
    """Backticked words and link targets that look like paths in a repository."""
    spans = re.findall(r"`([^`\n]+)`", text) + re.findall(r"\]\(([^)\s]+)\)", text)
    named = []
    for span in spans:
        path = re.sub(r"(#.*|:\d+(-\d+)?)$", "", span.strip())
        looks_like_a_path = "/" in path or path.endswith(FILE_ENDINGS)
        if looks_like_a_path and PATH_LIKE.match(path) and not path.startswith(("/", "http")):
            named.append(path.rstrip("/"))
    return named


def _exists(path: str, beside: Path, top_level: set[str]) -> bool:
    if path.startswith(MADE_BY_RUNNING) or path.split("/")[0] in MADE_BY_RUNNING:
        return True
    if (beside / path).exists() or (ROOT / path).exists():
        return True
    # A path that does not start at the root or beside the document (`rules/pirate.py` in a game's README,
    # `gateway/feeds/hub.py`): it must still name a file of the tree.
    first = path.split("/")[0]
    return first not in top_level and any(name.endswith("/" + path) for name in _tracked())


def test_every_path_a_document_names_exists() -> None:
    top_level = {name.split("/")[0] for name in _tracked()}
    missing = []
    for document in _markdown_files():
        for path in _named_paths(document.read_text()):
            looks_like_ours = path.split("/")[0] in top_level or path.endswith(FILE_ENDINGS)
            if looks_like_ours and not _exists(path, document.parent, top_level):
                missing.append(f"{document.relative_to(ROOT)}: {path}")
    assert missing == []


def test_every_readme_command_is_run_by_the_journey_or_says_why_not() -> None:
    steps = plan()
    assert steps, f"no command lines found in {README}"
    assert [s.line for s in steps if s.kind == "unknown"] == []
    assert all(s.reason for s in steps if s.kind == "not-run")
    assert {s.kind for s in steps} >= {"make-run", "shell", "help"}


def test_a_missing_path_is_caught() -> None:
    """The check itself: a made-up path in a made-up document is reported."""
    top_level = {name.split("/")[0] for name in _tracked()}
    named = _named_paths("see `services/no_such_module.py` and [this](docs/nothing.md#x), `make run`")
    assert named == ["services/no_such_module.py", "docs/nothing.md"]
    assert not any(_exists(path, ROOT / "docs", top_level) for path in named)
