"""The figures the reference pages give, held to the code (issue 46): the compiled modules' count, every
documented default of a setting (in a table or in prose), named constants (limits, deadlines, beats, a
tournament's bounds, the rating's base), the strong bot's levels and the table clocks. A figure that moves
fails here with the page and sentence to update."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.config import Settings
from services.move_path import COMPILED
from tests.unit.contract.reference_pages import ROOT, claim, read


def test_the_compiled_modules_are_counted_as_they_are() -> None:
    """Counted in ``COMPILED`` (``services/move_path.py``): the games' rules, the move path, all of them."""
    rules = str(len([module for module in COMPILED if module.startswith("domain.")]))
    move_path, every = str(len(COMPILED) - int(rules)), str(len(COMPILED))
    architecture = r"the (\d+) modules of `events/`.*?the games' (\d+) `rules` and `evolve`.*?\((\d+) in all"
    assert claim("docs/architecture.md", architecture) == (move_path, rules, every)
    dependencies = r"builds (\d+) typed modules.*?the (\d+) a move passes through.*?the games' (\d+) `rules`"
    assert claim("docs/dependencies.md", dependencies) == (every, move_path, rules)


def test_the_bot_levels_are_those_played() -> None:
    """The strong bot's levels and their seconds a move, in the README and the guide's table."""
    from workers.jobs.bots import STRONG_SECONDS

    (levels,) = claim("README.md", r"`strong` bots \(([^:]*): the seconds it thinks a move")
    assert re.findall(r"`([^`]+)`", levels) == list(STRONG_SECONDS)
    rows = re.findall(r"^\| `(strong[^`]*)` \| [^|]*?([\d.]+) s a move", read("docs/guide.md"), re.M)
    assert {name: float(seconds) for name, seconds in rows} == STRONG_SECONDS


SUMMARISED = [
    (r"run ([\d.]+)–([\d.]+)× boardgame.io's moves/s at 50 games and ([\d.]+)–([\d.]+)× at 200",
     r"([\d.]+)–([\d.]+)× boardgame.io's moves/s at 50 games and ([\d.]+)–([\d.]+)× at 200"),
    (r"p99 from submit to append is (\d+)–(\d+) ms at 10,000", r"p99 submit → appended (\d+)–(\d+) ms at 10,000"),
    (r"1,000th spectator in a median (\d+)–(\d+) ms", r"1,000th spectator a median (\d+)–(\d+) ms"),
    (r"games of Manila\) takes\s+(\d+) s on a quiet", r"Manila round (\d+) s"),
    (r"its pairing ([\d.]+) s and its", r"Manila round \d+ s \([\d,]+ commands\), close [\d.]+ s \(decide [\d.]+ / act [\d.]+\), pairing ([\d.]+) s"),
    (r"and its close ([\d.]+) s", r"Manila round \d+ s \([\d,]+ commands\), close ([\d.]+) s"),
]  # fmt: skip
"""The README's figures in short and the same figures in ``docs/benchmarks.md``: (README, benchmarks page)."""


@pytest.mark.parametrize(("short", "full"), SUMMARISED, ids=[s[0][:30] for s in SUMMARISED])
def test_the_readmes_figures_are_the_benchmarks_pages(short: str, full: str) -> None:
    """Each figure the README gives in short is the benchmarks page's, rounded to the README's precision."""
    for summary, figure in zip(claim("README.md", short), claim("docs/benchmarks.md", full), strict=True):
        decimals = len(summary.partition(".")[2])
        assert abs(float(summary) - float(figure)) <= 0.5 * 10**-decimals + 1e-9, (summary, figure)


# --- settings ---------------------------------------------------------------------------------------------

NAMED = {"HARBORMASTER_LOG_LEVEL"}
"""Settings that remember whether they were set (``log_level_named``): setting the default changes that."""


IN_PROSE = [
    ("docs/operations.md", r"`HARBORMASTER_PARTITIONS` \((\d+)\)", "HARBORMASTER_PARTITIONS"),
    ("docs/operations.md", r"`HARBORMASTER_SNAPSHOT_EVERY` \((\d+) events\)", "HARBORMASTER_SNAPSHOT_EVERY"),
    ("docs/operations.md", r"`_REPLICAS`, default (\d+),", "HARBORMASTER_REPLICA_ACK_REPLICAS"),
    ("docs/operations.md", r"`_TIMEOUT_MS`, (\d+)\)", "HARBORMASTER_REPLICA_ACK_TIMEOUT_MS"),
    ("docs/operations.md", r"limits.md`\): (\d+) sockets per address", "HARBORMASTER_WS_PER_ADDRESS"),
    ("docs/operations.md", r"(\d+) commands/s per seat token", "HARBORMASTER_COMMANDS_PER_TOKEN"),
    ("docs/operations.md", r"per seat token, (\d+)/s per address", "HARBORMASTER_COMMANDS_PER_ADDRESS"),
    ("docs/operations.md", r"`…_HEADER_TIMEOUT`, (\d+) s\)", "HARBORMASTER_HEADER_TIMEOUT"),
    ("docs/operations.md", r"`…_IDLE_TIMEOUT`, (\d+) s\)", "HARBORMASTER_IDLE_TIMEOUT"),
    ("docs/operations.md", r"opens at most (\d+) WebSockets a second", "HARBORMASTER_WS_OPENS_PER_ADDRESS"),
    ("docs/operations.md", r"reads the API (\d+) times a second", "HARBORMASTER_READS_PER_ADDRESS"),
    ("docs/guide.md", r"`HARBORMASTER_TABLE_GAME_IDLE_HOURS` \((\d+) h\)", "HARBORMASTER_TABLE_GAME_IDLE_HOURS"),
    ("services/gateway/README.md", r"`HARBORMASTER_WS_FRAMES_PER_SECOND`, (\d+) a second",
     "HARBORMASTER_WS_FRAMES_PER_SECOND"),
]  # fmt: skip
"""Defaults a page gives in its prose: (page, the sentence with the figure, the variable)."""


def documented_defaults() -> Iterator[tuple[str, str, str]]:
    """(page, variable, default) for each table row that gives a plain default (a number or a word), and
    each default given in prose (``IN_PROSE``)."""
    for page in ("docs/settings.md", "docs/limits.md", "docs/operations.md"):
        for row in re.finditer(r"^\| `([A-Z][A-Z_]+)` \| `([^`<>/]+)` \|", read(page), re.M):
            yield page, row.group(1), row.group(2)
    for page, pattern, variable in IN_PROSE:
        yield page, variable, claim(page, pattern)[0]


def settings_with(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> Settings:
    for name in list(os.environ):
        if name.startswith("HARBORMASTER_") or name in ("REDIS_URL", "RQ_REDIS_URL"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env()


def test_every_documented_default_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Setting a variable to the default its page gives changes nothing."""
    unset = settings_with(monkeypatch, {})
    rows = [row for row in documented_defaults() if row[1] not in NAMED]
    assert len(rows) >= 40
    wrong = [row for row in rows if settings_with(monkeypatch, {row[1]: row[2]}) != unset]
    assert wrong == []


def test_a_wrong_default_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings_with(monkeypatch, {"HARBORMASTER_PARTITIONS": "17"}) != settings_with(monkeypatch, {})


# --- named constants --------------------------------------------------------------------------------------


CONSTANTS = [
    ("services/gateway/README.md", r"kept (\d+) s per gateway once looked up \(`context\.SEAT_CACHE_S`\)",
     "SEAT_CACHE_S", 1),
    ("docs/tournaments.md", r"trusts a seat token it looked up for (\d+) s \(`SEAT_CACHE_S`\)", "SEAT_CACHE_S", 1),
    ("docs/benchmarks.md", r"`MAX_LEGAL_COMMANDS` = (\d+)", "MAX_LEGAL_COMMANDS", 1),
    ("docs/limits.md", r"a gateway holds at most ([\d,]+) WebSockets in all", "DEFAULT_MAX_WEBSOCKETS", 1),
    ("docs/limits.md", r"request bodies at most (\d+) KB", "MAX_BODY", 1024),
    ("docs/limits.md", r"frames from clients at most (\d+) KB", "MAX_WS_MESSAGE", 1024),
    ("docs/limits.md", r"JSON nested at most (\d+) deep", "MAX_DEPTH", 1),
    ("docs/limits.md", r"a reason of at most (\d+) bytes", "MAX_CLOSE_REASON", 1),
    ("docs/guide.md", r"The job's \*\*deadline\*\* is its level plus ([\d.]+) s", "DEADLINE_MARGIN_S", 1),
    ("docs/guide.md", r"a reconciler runs at start and every (\d+) s", "RECONCILE_EVERY_S", 1),
    ("docs/reliability.md", r"`serve` runs `reconcile\(\)` at start and every (\d+) s", "RECONCILE_EVERY_S", 1),
    ("docs/guide.md", r"at most (\d+) characters, 1 a second per author", "MAX_CHAT", 1),
    ("docs/guide.md", r"\*(\d+) \+ 40 × \(μ − 25\)\*", "SHOWN_BASE", 1),
    ("services/gateway/README.md", r"A viewer whose bounded queue \((\d+) frames\) overflows", "QUEUE_LIMIT", 1),
    ("services/gateway/README.md", r"leaving answers unread \((\d+) waiting", "NOTES_LIMIT", 1),
    ("services/gateway/README.md", r"with a history of ([\d,]+) entries per account and game", "HISTORY_LIMIT", 1),
    ("services/gateway/README.md", r"the best (\d+) accounts of a game", "BOARD_LIMIT", 1),
    ("docs/web-client.md", r"`chat` frames on the game's socket, the last (\d+) on opening", "HISTORY", 1),
    ("docs/web-client.md", r"/api/me/muted/<author>`, at most (\d+)\)", "MAX_MUTED", 1),
    ("docs/guide.md", r"\*provisional\* until the account's (\d+)th rated game", "PROVISIONAL_GAMES", 1),
    ("docs/web-client.md", r"fewer than (\d+) rated games after them", "PROVISIONAL_GAMES", 1),
    ("docs/guide.md", r"at most ([\d,]+) players and \d+ rounds", "domain/tournament:MAX_PLAYERS", 1),
    ("docs/guide.md", r"players and (\d+) rounds, known bots", "domain/tournament:MAX_ROUNDS", 1),
    ("docs/tournaments.md", r"at most \*\*([\d,]+)\*\* players", "domain/tournament:MAX_PLAYERS", 1),
    ("docs/tournaments.md", r"rounds are 0 \(the natural length\) to \*\*(\d+)\*\*", "domain/tournament:MAX_ROUNDS", 1),
    ("docs/tournaments.md", r"names of 1 to (\d+) characters", "domain/tournament:MAX_NAME", 1),
]  # fmt: skip
"""(page, the sentence with its figure, the constant, the figure's unit): the figure times the unit is the
constant's value wherever the service defines it."""


def constant_values(name: str) -> set[object]:
    """Every module-level value the service gives ``name`` (a literal or arithmetic on literals); a name as
    ``folder:NAME`` is looked for under that folder alone (``MAX_PLAYERS`` is a game's too)."""
    within, _, name = name.rpartition(":")
    values: set[object] = set()
    for folder in (within,) if within else ("domain", "events", "workers", "services"):
        for path in (ROOT / folder).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            if name not in source:
                continue
            for node in ast.parse(source).body:
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                else:
                    continue
                if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                    values.add(evaluated(value, path))
    return values


def evaluated(value: ast.expr, path: Path) -> object:
    """A constant's value: a literal or arithmetic on literals (``16 * 1024``, ``50_000``), nothing else."""
    assert all(isinstance(n, ast.Constant | ast.BinOp | ast.operator | ast.UnaryOp | ast.unaryop)
               for n in ast.walk(value)), f"{path}: {ast.unparse(value)} is not arithmetic on literals"  # fmt: skip
    return eval(compile(ast.Expression(value), str(path), "eval"), {"__builtins__": {}})


@pytest.mark.parametrize(
    ("page", "pattern", "name", "unit"), CONSTANTS, ids=[c[2] + ":" + c[0] for c in CONSTANTS]
)
def test_a_figure_a_page_gives_is_its_constant(page: str, pattern: str, name: str, unit: int) -> None:
    (figure,) = claim(page, pattern)
    assert constant_values(name) == {float(figure.replace(",", "")) * unit}


def test_the_table_clocks_are_those_offered() -> None:
    """The guide's presets and custom ranges are ``workers/jobs/table_clocks.py``'s."""
    from workers.jobs.table_clocks import LIMITS, PRESETS

    text = " ".join(read("docs/guide.md").split())
    presets = re.findall(r"`([a-z-]+)` \((\d+ min \+ \d+ s/move|\d+ days?/move)\)", text)
    assert len(presets) >= 4 and all(PRESETS[name].label() == label for name, label in presets)
    ranges = re.findall(r'"(minutes|increment_s|hours)": (\d+)-(\d+)', text)
    assert {field: (int(low), int(high)) for field, low, high in ranges} == LIMITS


def test_what_a_seat_out_of_time_becomes_is_each_choice_offered() -> None:
    """The guide's list under "What a seat out of time becomes" has one item for each ``on_timeout``."""
    from workers.jobs.table_clocks import ON_TIMEOUT

    section = read("docs/guide.md").split("What a seat out of time becomes", 1)[1].split("**Presence**")[0]
    assert re.findall(r"^- `([a-z]+)`", section, re.M) == list(ON_TIMEOUT)
