"""``strong`` is seatable wherever ``greedy`` is, and a move keeps its deadline (issue 45).

The search has no clock; the service hands it a deadline (``workers.jobs.bots``) as a ``stop`` callable,
which the search obeys at once. The deadline under load, over real rq workers, is
``tests/integration/bots/test_strong_in_the_service.py``'s.
"""

from __future__ import annotations

from typing import get_args

import msgspec
import pytest

from domain import GAMES
from domain.engine import Rng
from services.gateway.api.players_protocol import BotName, OpenTable
from services.gateway.api.protocol import CreateGame
from workers.jobs import bots


@pytest.mark.parametrize("key", ["elcapitan", "eic", "manila"])
def test_strong_is_a_bot_every_game_has(key: str) -> None:
    assert {"greedy", "strong"} <= set(bots.bot_names(GAMES[key]))


def test_the_lobby_and_tables_accept_strong() -> None:
    created = msgspec.json.decode(
        b'{"game": "manila", "seats": 3, "bots": {"1": "strong-5"}}', type=CreateGame
    )
    table = msgspec.json.decode(b'{"game": "eic", "seats": 3, "bots": ["strong-0.2"]}', type=OpenTable)
    assert created.bots == {"1": "strong-5"} and table.bots == ["strong-0.2"]
    for key, game in GAMES.items():  # the wire's names are the service's, every level of strong
        assert set(get_args(BotName)) == set(bots.bot_names(game)), key


class Counted:
    """A ``stop`` that says stop at its ``limit``-th question: a deadline without a clock."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked >= self.limit


@pytest.mark.parametrize("key", ["elcapitan", "eic", "manila"])
def test_a_strong_move_stops_at_the_first_stop_it_is_told(key: str) -> None:
    """The search asks ``stop`` before each iteration and ends at the first yes: a move's time is its
    iterations up to the deadline and one more at most (the deadline under load, measured by the jobs
    themselves: ``tests/integration/bots/test_strong_in_the_service.py``)."""
    game = GAMES[key]
    state, _ = game.start(4, {}, b"deadline")
    seat = min(game.to_act(state))
    stop = Counted(5)
    command = bots.bot_policy(game, "strong", stop=stop)(state, seat, Rng(b"deadline"))
    assert command in game.legal_commands(state, seat)
    assert stop.asked in (0, 5)  # 0: a single legal command, nothing to search
