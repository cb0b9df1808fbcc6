"""The reference pages tell the truth where a test can tell (issue 46), their names first: the README's shape,
the WebSocket close codes, the CLI's verbs and flags, the games, the fold worker's hooks, the reserved command
ids, the benchmarks and the dependencies each page names. ``test_reference_figures.py`` checks the figures.
``docs/history/`` is not checked: it records what was true when it was written. (``test_docs.py`` checks that
every path a document names exists.)"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import subprocess
import sys
import tomllib
import typing
from collections.abc import Iterator
from pathlib import Path

from services.cli import parser
from tests.unit.contract.reference_pages import README, ROOT, claim, read, reference_pages


def test_the_readme_opens_with_the_two_commands_and_stays_short() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```[^\n]*\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert [c for c in commands if c] == ["make run", "make test"]
    assert len(text.split()) <= 1500


# --- WebSocket close codes ----------------------------------------------------------------------------------

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


# --- the CLI ------------------------------------------------------------------------------------------------


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


# --- the HTTP API ---------------------------------------------------------------------------------------


def routes() -> set[str]:
    """Every path the gateway serves, as ``openapi.ENDPOINTS`` declares it (the app's routes are made from it)."""
    from services.gateway.api.openapi import ENDPOINTS

    return set(ENDPOINTS)


def documented(path: str, text: str) -> bool:
    """Whether the gateway's README names ``path``: whole, as ``…/last`` after its sibling, or among
    ``a\\|b`` alternatives (``/api/tournaments/{id}/start\\|pause``); a parameter's name is free."""
    path = re.sub(r"\{[^}]*\}", "{}", path)
    parent, last = path.rsplit("/", 1)
    among = re.escape(parent) + r"/(?:[a-z-]+\\\|)*" + re.escape(last) + r"(?![a-z-])"
    return path in text or f"…/{last}" in text or re.search(among, text) is not None


def test_every_route_is_in_the_gateways_readme() -> None:
    text = re.sub(r"\{[^}]*\}", "{}", read("services/gateway/README.md"))
    assert len(routes()) >= 50
    assert sorted(path for path in routes() if not documented(path, text)) == []


def test_every_frame_of_the_socket_is_in_the_gateways_readme() -> None:
    """Each kind of frame the game socket sends or takes (``ServerFrame``, ``ClientFrame``) is described."""
    from services.gateway.api import protocol

    section = read("services/gateway/README.md").split("## WebSocket", 1)[1].split("\n## ", 1)[0]
    kinds = [
        member.__struct_config__.tag
        for frames in (protocol.ServerFrame, protocol.ClientFrame)
        for member in typing.get_args(frames)
    ]
    assert len(kinds) >= 8
    assert [kind for kind in kinds if not re.search(rf'`{kind}\b|"type": "{kind}"', section)] == []


def test_every_metric_a_page_names_is_exported() -> None:
    """A ``harbormaster_…`` series a page tells operators to watch is one the service writes."""
    named = {m for page in reference_pages() for m in re.findall(r"\bharbormaster_[a-z_]+", page.read_text())}
    source = "".join(path.read_text() for folder in ("services", "workers", "events") for path in
                     (ROOT / folder).rglob("*.py"))  # fmt: skip
    assert len(named) >= 3 and sorted(m for m in named if m not in source) == []


def test_an_undocumented_route_is_caught() -> None:
    text = "`POST /api/tournaments/{}/start\\|pause`, `GET /api/tables/{}`, `POST …/join`"
    assert documented("/api/tournaments/{tournament_id}/pause", text)
    assert documented("/api/tables/{table_id}/join", text)
    assert not documented("/api/tournaments/{tournament_id}/resume", text)
    assert not documented("/api/games/{game_id}/undo", text)


# --- games, hooks, command ids ------------------------------------------------------------------------------


def test_the_games_and_their_seats_are_those_hosted() -> None:
    """The README's table of games: each key ``domain.GAMES`` hosts, with its seat range."""
    from domain import GAMES

    rows = re.findall(r"^\| `([a-z]+)` \| [^|]+ \| (\d)–(\d)", read("README.md"), re.M)
    assert {key: (int(low), int(high)) for key, low, high in rows} == {
        key: (game.min_seats, game.max_seats) for key, game in GAMES.items()
    }


def test_the_hooks_named_are_the_hooks_run() -> None:
    """The fold worker's hooks, each isolated by name in ``workers/runner.py``, are the ones listed."""
    (listed,) = claim("docs/reliability.md", r"the fold worker's hooks \(([a-z, ]+) triggers")
    named = set(re.split(r", | and ", listed))
    run = set(re.findall(r'_isolated\("(\w+)_trigger"', (ROOT / "workers/runner.py").read_text()))
    assert named == run


def test_the_reserved_command_ids_are_those_refused() -> None:
    """``docs/security.md`` names every prefix a client's command id may not start with."""
    from events.command_ids import RESERVED_PREFIXES

    (named,) = claim("docs/security.md", r"So ((?:`[a-z]+-`(?:, | and )?)+) \(in any case")
    assert set(re.findall(r"`([a-z]+-)`", named)) == set(RESERVED_PREFIXES)


# --- benchmarks and dependencies ----------------------------------------------------------------------------


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
