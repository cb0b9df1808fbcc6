"""The reference pages tell the truth where a test can tell (issue 46): each figure or name they state that the
tree can compute is computed here and compared — the compiled modules' count, every documented default of a
setting, the WebSocket close codes, the CLI's verbs and flags, the fold worker's hooks, named constants, the
benchmarks, the dependencies and the README's shape. ``docs/history/`` is not checked: it records what was
true when it was written. (``test_docs.py`` checks that every path a document names exists.)"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.cli import parser
from services.config import Settings
from services.move_path import COMPILED

ROOT = Path(__file__).resolve().parents[2]
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


def test_the_readme_opens_with_the_two_commands_and_stays_short() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```[^\n]*\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert [c for c in commands if c] == ["make run", "make test"]
    assert len(text.split()) <= 1500


def test_the_compiled_modules_are_counted_as_they_are() -> None:
    """Counted in ``COMPILED`` (``services/move_path.py``): the games' rules, the move path, all of them."""
    rules = str(len([module for module in COMPILED if module.startswith("domain.")]))
    move_path, every = str(len(COMPILED) - int(rules)), str(len(COMPILED))
    architecture = r"the (\d+) modules of `events/`.*?the games' (\d+) `rules` and `evolve`.*?\((\d+) in all"
    assert claim("docs/architecture.md", architecture) == (move_path, rules, every)
    dependencies = r"builds (\d+) typed modules.*?the (\d+) a move passes through.*?the games' (\d+) `rules`"
    assert claim("docs/dependencies.md", dependencies) == (every, move_path, rules)


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


# --- WebSocket close codes --------------------------------------------------------------------------------

UVICORN_CLOSES = {1012}
"""Sent by uvicorn itself, not by our code: 1012 to every open socket when the server stops."""


def close_codes() -> tuple[dict[str, int], set[str]]:
    """The gateway's ``CLOSE_*`` constants (name → code) and the names some code other than their definition
    and imports uses."""
    defined: dict[str, int] = {}
    used: set[str] = set()
    for path in (ROOT / "services/gateway").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                code = node.value.value
                for target in node.targets:
                    if (
                        isinstance(target, ast.Name)
                        and target.id.startswith("CLOSE_")
                        and isinstance(code, int)
                    ):
                        defined[target.id] = code
            elif (
                isinstance(node, ast.Name) and node.id.startswith("CLOSE_") and isinstance(node.ctx, ast.Load)
            ):
                used.add(node.id)
            elif isinstance(node, ast.Attribute) and node.attr.startswith("CLOSE_"):
                used.add(node.attr)
    return defined, used


def test_the_close_codes_documented_are_those_sent() -> None:
    defined, used = close_codes()
    sent = {code for name, code in defined.items() if name in used}
    assert {1007, 1008, 1009, 4400, 4401, 4404} <= sent
    (listed,) = claim("services/gateway/README.md", r"Close codes: (.*?Redis unavailable[^.]*\.)")
    assert {int(code) for code in re.findall(r"\b([14]\d{3})\b", listed)} == sent | UVICORN_CLOSES
    limits = {int(code) for code in re.findall(r"close \**(\d{4})\b", read("docs/limits.md"))}
    assert limits <= sent | UVICORN_CLOSES


# --- the CLI ----------------------------------------------------------------------------------------------


def code_spans(text: str) -> list[str]:
    """Each line of the fenced code blocks, and each inline code span outside them."""
    fenced = re.compile(r"```[^\n]*\n(.*?)```", re.S)
    lines = [line for block in fenced.findall(text) for line in block.splitlines()]
    return lines + re.findall(r"`([^`\n]+)`", fenced.sub("", text))


def invocations() -> Iterator[tuple[str, list[str]]]:
    """(page, words) for each ``harbormaster VERB …`` (or ``tournament VERB …``) in a page's code, up to the
    first pipe, redirection, comment or ``&&``."""
    pattern = re.compile(r"(?:^|[\s/])harbormaster\s+([^|>#;&]*)|^(tournament\s+[^|>#;&]*)")
    for page in reference_pages():
        for span in code_spans(page.read_text(encoding="utf-8")):
            for found in pattern.finditer(span):
                words = (found.group(1) or found.group(2) or "").split()
                if words:
                    yield str(page.relative_to(ROOT)), words


def verbs_of(command: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def flags_of(command: argparse.ArgumentParser) -> set[str]:
    return {flag for action in command._actions for flag in action.option_strings}


@functools.cache
def cli() -> argparse.ArgumentParser:
    return parser()


def unknown_words(words: list[str]) -> list[str]:
    """What in one invocation the CLI does not have: a verb, a tournament's verb, or a flag."""
    command = cli()
    verbs = verbs_of(command)
    if words[0] not in verbs:
        return [words[0]]
    command = verbs[words[0]]
    nested = verbs_of(command)
    if nested and len(words) > 1 and re.fullmatch(r"[a-z][a-z-]*", words[1]):
        if words[1] not in nested:
            return [words[1]]
        command = nested[words[1]]
    flags = {word.strip("[]").split("=")[0] for word in words if word.strip("[").startswith("--")}
    return sorted(flags - flags_of(command))


def test_every_verb_and_flag_the_reference_names_exists() -> None:
    seen = list(invocations())
    assert len(seen) >= 40 and {words[0] for _, words in seen} >= {"serve", "verify", "tournament", "witness"}
    wrong = [(page, " ".join(words), unknown) for page, words in seen if (unknown := unknown_words(words))]
    assert wrong == []


def test_a_made_up_verb_or_flag_is_caught() -> None:
    assert unknown_words(["serve", "--port", "8000"]) == []
    assert unknown_words(["tournament", "export", "ID", "--to", "FOLDER"]) == []
    assert unknown_words(["serve", "[--colour]"]) == ["--colour"]
    assert unknown_words(["tournament", "rerun"]) == ["rerun"]
    assert unknown_words(["undo"]) == ["undo"]


def test_the_installed_command_offers_the_verbs_the_parser_has() -> None:
    """``harbormaster --help`` as a user runs it lists exactly the parser's verbs."""
    command = Path(sys.executable).with_name("harbormaster")
    shown = subprocess.run([str(command), "--help"], capture_output=True, text=True, check=True, timeout=60)
    listed = re.search(r"\{([a-z,-]+)\}", shown.stdout)
    assert listed is not None and set(listed.group(1).split(",")) == set(verbs_of(cli()))


# --- games, bots, hooks and named constants ------------------------------------------------------------


def test_the_games_and_their_seats_are_those_hosted() -> None:
    """The README's table of games: each key ``domain.GAMES`` hosts, with its seat range."""
    from domain import GAMES

    rows = re.findall(r"^\| `([a-z]+)` \| [^|]+ \| (\d)–(\d)", read("README.md"), re.M)
    assert {key: (int(low), int(high)) for key, low, high in rows} == {
        key: (game.min_seats, game.max_seats) for key, game in GAMES.items()
    }


def test_the_bot_levels_are_those_played() -> None:
    """The strong bot's levels and their seconds a move, in the README and the guide's table."""
    from workers.jobs.bots import STRONG_SECONDS

    (levels,) = claim("README.md", r"`strong` bots \(([^:]*): the seconds it thinks a move")
    assert re.findall(r"`([^`]+)`", levels) == list(STRONG_SECONDS)
    rows = re.findall(r"^\| `(strong[^`]*)` \| [^|]*?([\d.]+) s a move", read("docs/guide.md"), re.M)
    assert {name: float(seconds) for name, seconds in rows} == STRONG_SECONDS


def test_the_hooks_named_are_the_hooks_run() -> None:
    """The fold worker's hooks, each isolated by name in ``workers/runner.py``, are the ones listed."""
    (listed,) = claim("docs/reliability.md", r"the fold worker's hooks \(([a-z, ]+) triggers")
    named = set(re.split(r", | and ", listed))
    run = set(re.findall(r'_isolated\("(\w+)_trigger"', (ROOT / "workers/runner.py").read_text()))
    assert named == run


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


# --- benchmarks and dependencies --------------------------------------------------------------------------


def benchmarks() -> set[str]:
    return {path.stem.removeprefix("bench_") for path in (ROOT / "tests/bench").glob("bench_*.py")}


def test_every_benchmark_has_its_row_and_every_row_its_benchmark() -> None:
    rows = re.findall(r"^\| (`python -m tests\.bench [^|]*) \|", read("docs/benchmarks.md"), re.M)
    listed = {name for row in rows for name in re.findall(r"`(?:python -m tests\.bench )?([a-z_]+)`", row)}
    assert listed == benchmarks()


def test_every_benchmark_a_page_names_is_one() -> None:
    """``python -m tests.bench NAME`` runs the benchmarks whose names contain NAME: each must find one."""
    names = [
        (str(page.relative_to(ROOT)), name)
        for page in reference_pages()
        for run in re.findall(r"python -m tests\.bench((?: [a-z_]+)+)", page.read_text(encoding="utf-8"))
        for name in run.split()
    ]
    assert len(names) >= 20
    assert [(page, name) for page, name in names if not any(name in b for b in benchmarks())] == []


def package(requirement: str) -> str:
    return re.split(r"[\[<>=;~ ]", requirement, maxsplit=1)[0].lower()


def test_every_dependency_is_named_with_its_kind_and_reason() -> None:
    """``docs/dependencies.md`` has a row for each package ``pyproject.toml`` installs, labelled ``dev:`` or
    ``browser:`` when it is installed for tests only, and the README names each."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    kinds = {package(r): "" for r in project["dependencies"]}
    for extra, requirements in project["optional-dependencies"].items():
        kinds |= {package(r): f"{extra}:" for r in requirements}
    table = re.findall(r"^\| ((?:dev: |browser: )?`[^|]*) \|", read("docs/dependencies.md"), re.M)
    documented = {
        package(name): (cell.split()[0] if cell.startswith(("dev:", "browser:")) else "")
        for cell in table
        for name in re.findall(r"`([^`]+)`", cell)
    }
    assert documented == kinds
    (section,) = claim("README.md", r"## Dependencies, and why each (.*?) Why each, against")
    assert {package(name) for name in re.findall(r"`([^`]+)`", section)} >= set(kinds)
