"""Every Redis key's text is written in ``events/keys.py`` alone (issue 46, finding 3: key strings were
written in modules all over, ``hm:account:<name>`` three times, so a rename missed some).

The scan reads the source of ``services/``, ``workers/`` and ``events/`` as Python: a string literal (an
f-string's parts too, and Lua held in a string) that holds ``hm:`` or a use of ``keys.PREFIX`` outside
``events/keys.py`` is a key written in a second place. Docstrings and comments may name keys.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from events import keys

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("services", "workers", "events")
HOME = Path("events/keys.py")
KEY_TEXT = re.compile(rf"(?<![\w.-]){re.escape(keys.PREFIX)}:")

TO_MOVE: dict[str, int] = {}
"""Known places still writing key text, with how many literals each: to move, not to grow."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of strings standing alone as statements: docstrings of modules, classes, functions and
    attributes, which name keys to explain them and write none."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _key_text(source: str) -> list[str]:
    """The literals holding key text, and the uses of ``PREFIX``, in one module's source."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found += [f"{node.lineno}: {node.value[:60]!r}"] if KEY_TEXT.search(node.value) else []
        elif isinstance(node, ast.Attribute) and node.attr == "PREFIX":
            found.append(f"{node.lineno}: .PREFIX")
        elif isinstance(node, ast.Name) and node.id == "PREFIX":
            found.append(f"{node.lineno}: PREFIX")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def _scanned() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative != HOME and (found := _key_text(path.read_text())):
                out[relative.as_posix()] = found
    return out


def test_no_redis_key_text_outside_events_keys() -> None:
    found = _scanned()
    unexpected = {path: lines for path, lines in found.items() if path not in TO_MOVE}
    assert unexpected == {}, "write these keys in events/keys.py and call it"
    grown = {path: found[path] for path, count in TO_MOVE.items() if len(found.get(path, [])) > count}
    assert grown == {}, "an allow-listed module gained key text"
    moved = {path for path in TO_MOVE if (ROOT / path).exists() and path not in found}
    assert moved == set(), "remove the moved module from TO_MOVE"


def test_the_scan_finds_key_text_where_it_is() -> None:
    """The scan is not blind: each form of a key written in place is found, a docstring naming one is not."""
    source = '''
"""Keys: ``hm:account:<name>``."""
from events import keys
A = "hm:tables:open"
B = f"hm:account:{name}:games"
C = f"{keys.PREFIX}:clock:due"
LUA = "redis.call('HGET', 'hm:table:' .. id, 'status')"
D = keys.TABLES_OPEN
"""The open tables (``hm:tables:open``)."""
E = "ohm:not-a-key"
'''
    assert [line.split(":")[0] for line in _key_text(source)] == ["4", "5", "6", "7"]
