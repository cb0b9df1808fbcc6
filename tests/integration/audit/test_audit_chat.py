"""The table chat in a game's export, for the record (issue 35: "chat in the game's log for the record, not in
the hash chain of moves"): its lines come after the commands, the end line counts them, and verify tells a
file that lost one; the events' and commands' lines are the same with chat as without."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from services.archive import archive_game
from services.audit.verify import verify_file, verify_lines
from services.export import export_lines
from services.players import chat
from tests.conftest import TEST_GAMES
from tests.support.pipeline import finished_race, services_for

MESSAGES = [
    ("players", "Anna", 0, "good luck"),
    ("spectators", "Watcher", None, "nice roll"),
    ("players", "Bruno", 1, "gg"),
]


def _say(redis_url: str, game_id: str, messages: list[tuple[str, str, int | None, str]]) -> None:
    """Post through the chat store the gateway uses (``services/players/chat.py``)."""

    async def post() -> None:
        client = aioredis.Redis.from_url(redis_url)
        try:
            for channel, author, seat, text in messages:
                await chat.append(client, game_id, channel, author, seat, text)
        finally:
            await client.aclose()

    asyncio.run(post())


def _kinds(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["kind"] for line in lines]


def _without_chat(lines: list[bytes]) -> list[bytes]:
    """The lines but chat, the end line's chat count left out."""
    kept = []
    for line in lines:
        item: dict[str, Any] = json.loads(line)
        if item["kind"] == "chat":
            continue
        item.pop("chat", None)
        kept.append(json.dumps(item, sort_keys=True).encode())
    return kept


def test_chat_is_exported_after_the_commands_and_counted_by_the_end_line(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="talk")
    before = list(export_lines(services.store, game_id))
    _say(redis_url, game_id, MESSAGES)
    lines = list(export_lines(services.store, game_id))
    kinds = _kinds(lines)
    assert kinds[-1] == "end" and kinds[-4:-1] == ["chat"] * 3
    assert kinds.index("chat") > max(i for i, kind in enumerate(kinds) if kind in ("event", "command"))
    said = [json.loads(line) for line in lines if json.loads(line)["kind"] == "chat"]
    assert [(m["channel"], m["author"], m["seat"], m["text"]) for m in said] == MESSAGES
    assert all(m["ts_ms"] > 0 and m["id"] for m in said)
    assert json.loads(lines[-1])["chat"] == 3
    assert _without_chat(lines) == _without_chat(before)  # no event or command line moved

    report = verify_lines(lines, TEST_GAMES)
    assert report.ok, report.problems
    assert report.decisions_checked and report.chat == 3


def test_an_export_that_lost_a_chat_line_fails_verify(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="talk")
    _say(redis_url, game_id, MESSAGES)
    lines = list(export_lines(services.store, game_id))
    cut = [line for n, line in enumerate(lines) if n != _kinds(lines).index("chat")]
    report = verify_lines(cut, TEST_GAMES)
    assert not report.ok
    assert "2 chat lines, but the end line counts 3" in report.problems[0].reason


def test_an_export_made_before_chat_was_exported_still_verifies(redis_url, redis_client) -> None:
    """Old exports have no chat lines and no chat count on their end line."""
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="quiet")
    lines = list(export_lines(services.store, game_id))
    end = json.loads(lines[-1])
    del end["chat"]
    report = verify_lines([*lines[:-1], json.dumps(end).encode()], TEST_GAMES)
    assert report.ok and report.chat == 0, report.problems


def test_a_games_archive_keeps_its_chat_and_verifies(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="talk")
    _say(redis_url, game_id, MESSAGES)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"]
    report = verify_file(Path(entry["file"]), TEST_GAMES)
    assert report.ok and report.chat == 3, report.problems
