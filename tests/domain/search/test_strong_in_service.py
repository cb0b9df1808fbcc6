"""``strong`` is seatable wherever ``greedy`` is, and a move keeps its deadline (issue 45).

The search has no clock; the service hands it a deadline (``workers.jobs.bots``). Under load (a busy
thread beside it, on a machine shared with others) a move still ends within its level and the margin.
"""

from __future__ import annotations

import threading
import time

import msgspec
import pytest

from domain import GAMES
from domain.engine import Rng
from services.gateway.api.players_protocol import OpenTable
from services.gateway.api.protocol import CreateGame
from workers.jobs import bots


@pytest.mark.parametrize("key", ["elcapitan", "eic", "manila"])
def test_strong_is_a_bot_every_game_has(key: str) -> None:
    assert {"greedy", "strong"} <= set(bots.bot_names(GAMES[key]))


def test_the_lobby_and_tables_accept_strong() -> None:
    created = msgspec.json.decode(b'{"game": "manila", "seats": 3, "bots": {"1": "strong"}}', type=CreateGame)
    table = msgspec.json.decode(b'{"game": "eic", "seats": 3, "bots": ["strong"]}', type=OpenTable)
    assert created.bots == {"1": "strong"} and table.bots == ["strong"]


def _busy(until: threading.Event) -> None:
    while not until.is_set():
        sum(i * i for i in range(10_000))


@pytest.mark.parametrize("key", ["elcapitan", "eic", "manila"])
def test_a_strong_move_keeps_its_deadline_under_load(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(bots.STRONG_SECONDS, "strong", 0.2)
    game = GAMES[key]
    state, _ = game.start(4, {}, b"deadline")
    seat = min(game.to_act(state))
    done = threading.Event()
    load = threading.Thread(target=_busy, args=(done,))
    load.start()
    try:
        started = time.monotonic()
        command = bots.bot_policy(game, "strong")(state, seat, Rng(b"deadline"))
        took = time.monotonic() - started
    finally:
        done.set()
        load.join()
    assert command in game.legal_commands(state, seat)
    assert took < 0.2 + bots.DEADLINE_MARGIN_S
