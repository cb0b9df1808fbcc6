"""Settings are read in one place (issue 30): ``Settings.from_env`` in ``services/config.py`` is the only code
of the service that reads the environment, apart from the exceptions its docstring names, and every variable
it reads is in ``docs/settings.md``'s table.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from services.config import Settings

ROOT = Path(__file__).resolve().parents[3]
LAYERS = ("domain", "events", "workers", "services")
ENV_NAMES = ("environ", "environb", "getenv", "getenvb", "putenv", "unsetenv")

WHOLE = "<the whole environment>"
ALLOWED: dict[tuple[str, str], str] = {
    ("services/move_path.py", "HARBORMASTER_INTERPRETED"): "read as services is imported, before Settings",
    ("services/discovery.py", "XDG_STATE_HOME"): "the user's XDG base directory, not a setting of ours",
    ("services/children.py", WHOLE): "child_env hands the whole environment to the processes it starts",
}
"""(file, variable) read outside ``services/config.py``, each with the reason ``services/config.py`` gives."""

OUTSIDE_FROM_ENV = {"HARBORMASTER_INTERPRETED", "XDG_STATE_HOME"}
"""The variables of ``docs/settings.md`` that ``Settings.from_env`` does not read (the exceptions above)."""


def env_reads(source: str) -> Iterator[tuple[int, str]]:
    """(line, variable) for each use of the environment in ``source``; ``WHOLE`` where no single variable is
    named (``{**os.environ}``, a variable's name computed at run time)."""
    tree = ast.parse(source)
    from_os = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "os"
        for alias in node.names
        if alias.name in ENV_NAMES
    }
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        is_env = (
            isinstance(node, ast.Attribute)
            and node.attr in ENV_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ) or (isinstance(node, ast.Name) and node.id in from_os)
        if is_env:
            yield node.lineno, _variable(node, parents)


def _variable(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> str:
    """The variable read at ``node``: ``os.environ.get("X")``, ``os.environ["X"]``, ``"X" in os.environ``,
    ``os.getenv("X")``, ``os.environ.setdefault("X", …)``."""
    parent = parents.get(node)
    candidates: list[ast.expr] = []
    if isinstance(parent, ast.Call) and parent.func is node:  # os.getenv("X")
        candidates = parent.args[:1]
    elif isinstance(parent, ast.Attribute):  # os.environ.get("X") and the like
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            candidates = call.args[:1]
    elif isinstance(parent, ast.Subscript) and parent.value is node:  # os.environ["X"]
        candidates = [parent.slice]
    elif isinstance(parent, ast.Compare) and parent.comparators[:1] == [node]:  # "X" in os.environ
        candidates = [parent.left]
    for candidate in candidates:
        if isinstance(candidate, ast.Constant) and isinstance(candidate.value, str):
            return candidate.value
    return WHOLE


def service_modules() -> Iterator[Path]:
    for layer in LAYERS:
        yield from sorted((ROOT / layer).rglob("*.py"))


def test_the_finder_sees_every_way_of_reading_the_environment() -> None:
    source = (
        "import os\nfrom os import getenv as ge, environ\n"
        'a = os.environ.get("A")\nb = os.environ["B"]\nc = "C" in os.environ\nd = os.getenv("D")\n'
        'e = ge("E")\nf = environ.get("F")\ng = {**os.environ}\nos.environ.setdefault("H", "1")\n'
    )
    assert [v for _, v in sorted(env_reads(source))] == ["A", "B", "C", "D", "E", "F", WHOLE, "H"]


def test_only_services_config_reads_the_environment() -> None:
    found = []
    for path in service_modules():
        name = path.relative_to(ROOT).as_posix()
        if name == "services/config.py":
            continue
        for line, variable in env_reads(path.read_text(encoding="utf-8")):
            if (name, variable) not in ALLOWED:
                found.append(f"{name}:{line} reads {variable}")
    assert not found, (
        "read the environment in services/config.py (Settings) and hand the value down, or name the "
        "exception and its reason in services/config.py's docstring and in ALLOWED here:\n" + "\n".join(found)
    )


def test_every_exception_is_named_in_config_docstring() -> None:
    docstring = ast.get_docstring(ast.parse((ROOT / "services/config.py").read_text(encoding="utf-8"))) or ""
    for path, variable in ALLOWED:
        assert f"``{path}``" in docstring, path
        if variable != WHOLE:
            assert f"``{variable}``" in docstring, variable


class _Recording(dict[str, str]):
    """The environment, noting each variable looked up."""

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(env)
        self.asked: set[str] = set()

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)


def documented() -> set[str]:
    """The variables in the first column of ``docs/settings.md``'s tables."""
    text = (ROOT / "docs/settings.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", text, flags=re.MULTILINE))


def test_every_variable_settings_reads_is_documented_and_every_documented_one_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recording = _Recording(os.environ)
    monkeypatch.setattr(os, "environ", recording)
    Settings.from_env()
    read = recording.asked
    assert read >= {"REDIS_URL", "HARBORMASTER_DATA", "HARBORMASTER_ARCHIVE_TRIM"}  # the recording works
    assert read - documented() == set(), "docs/settings.md lacks these"
    assert documented() - read == OUTSIDE_FROM_ENV, "docs/settings.md lists these, which nothing reads"
