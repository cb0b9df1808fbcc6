"""Every Redis client of ours is built in ``events/connection.py`` (issue 46, item 3: clients were built in
20 modules, each with its own options; ``services/bootstrap.py``, the composition root, chooses which of
them a process gets).

The scan reads ``domain/``, ``events/``, ``workers/`` and ``services/`` as Python: a call of a redis-py
client class (``Redis``, ``RedisCluster``, ``StrictRedis``, a ``ConnectionPool``, however imported or
renamed) or of any ``from_url``/``from_pool`` outside ``events/connection.py`` is a client built in a
second place. Tests and benches build their own and are not scanned.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("domain", "events", "workers", "services")
HOME = Path("events/connection.py")
CLIENT_CLASSES = frozenset(
    {"Redis", "StrictRedis", "RedisCluster", "ConnectionPool", "BlockingConnectionPool", "Sentinel"}
)
CONSTRUCTORS = frozenset({"from_url", "from_pool"})

ALLOWED: dict[str, str] = {}
"""Modules that may build a client besides the home, each with its reason: none today."""


def _client_names(tree: ast.AST) -> set[str]:
    """The local names a module gives redis-py's client classes (``from redis.asyncio.cluster import
    RedisCluster as AsyncRedisCluster``)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "redis"
        for alias in node.names
        if alias.name in CLIENT_CLASSES
    }


def _clients_built(source: str) -> list[str]:
    """The lines of one module's source that build a client."""
    tree = ast.parse(source)
    names = _client_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in CLIENT_CLASSES | CONSTRUCTORS) or (
            isinstance(func, ast.Name) and func.id in names
        ):
            found.append(f"{node.lineno}: {ast.unparse(func)}(…)")
    return found


def _scanned() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            skipped = relative == HOME.as_posix() or relative in ALLOWED
            if not skipped and (found := _clients_built(path.read_text())):
                out[relative] = found
    return out


def test_no_module_but_the_home_builds_a_redis_client() -> None:
    assert _scanned() == {}


def test_the_scan_finds_a_client_however_it_is_built() -> None:
    source = """
import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as Cluster
a = redis.Redis(host="x")
b = aioredis.Redis.from_url("redis://x")
c = Cluster(host="x")
d = redis.ConnectionPool()
e = something_else(redis)
"""
    assert [line.split(":")[0] for line in _clients_built(source)] == ["5", "6", "7", "8"]


def test_the_home_builds_them() -> None:
    assert _clients_built((ROOT / HOME).read_text())
