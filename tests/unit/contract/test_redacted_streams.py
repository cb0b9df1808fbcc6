"""A viewer's events add up to what that viewer is shown (issue 16; docs/design-brief.md, "Hidden
information").

A viewer (a spectator, or one seat) receives ``redact(event, viewer)`` for every event; an auditor reading
a live game's public log, a replay viewer or an outside bot folding its own stream must arrive at exactly
the view the gateway shows it. So for every game, every option set, the spectator and every seat, at every
point of random games: ``view(fold(redact(e, viewer) for e in events), viewer) == view(state, viewer)``,
byte for byte, and ``evolve`` never fails on a redacted event.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import GAMES, Game
from domain.engine import Rng, rng_for
from tests.support.minimal_game import GAME as MINIMAL_GAME

ALL_GAMES: list[Game[Any, Any, Any, Any]] = [*GAMES.values(), MINIMAL_GAME]


def _cases() -> list[Any]:
    return [
        pytest.param(game, seats, options, id=f"{game.key}-{seats}p-opt{index}")
        for game in ALL_GAMES
        for seats in range(game.min_seats, game.max_seats + 1)
        for index, options in enumerate(game.option_examples)
    ]


class _Viewer:
    """One viewer's own fold of the events it received, checked against its view after every event."""

    def __init__(self, game: Game[Any, Any, Any, Any], seat: int | None) -> None:
        self.game, self.seat, self.state = game, seat, None

    def receive(self, event: Any, true_state: Any) -> None:
        redacted = self.game.redact(event, self.seat)
        if redacted is not None:
            # Through the wire form, as a client receives it: a blanked field must survive JSON.
            wire = msgspec.json.encode(redacted)
            self.state = self.game.evolve(self.state, msgspec.json.decode(wire, type=self.game.Event))
        assert self.state is not None, "the opening event must reach every viewer"
        shown = msgspec.json.encode(self.game.view(true_state, self.seat))
        folded = msgspec.json.encode(self.game.view(self.state, self.seat))
        assert folded == shown, (
            f"{self.game.key}: viewer {self.seat} after {type(event).__name__}: "
            f"folded {folded.decode()[:600]} != shown {shown.decode()[:600]}"
        )


def _play_and_watch(game: Game[Any, Any, Any, Any], seats: int, options: Any, seed: bytes) -> int:
    viewers = [_Viewer(game, None), *(_Viewer(game, seat) for seat in range(seats))]
    events = game.setup(seats, options, seed)
    state = None
    for event in events:
        state = game.evolve(state, event)
        for viewer in viewers:
            viewer.receive(event, state)
    picker = Rng(seed.ljust(32, b"\x00")[:32])
    while game.outcome(state) is None:
        acting = sorted(game.to_act(state))
        seat = picker.choice(acting)
        command = picker.choice(game.legal_commands(state, seat))
        for event in game.decide(state, seat, command, rng_for(seed, len(events) + 1)):
            state = game.evolve(state, event)
            events.append(event)
            for viewer in viewers:
                viewer.receive(event, state)
        assert len(events) < 50_000
    return len(events)


@pytest.mark.parametrize(("game", "seats", "options"), _cases())
def test_each_viewers_redacted_events_fold_to_its_view(game, seats, options) -> None:
    assert _play_and_watch(game, seats, options, f"redacted-{game.key}-{seats}".encode()) > 1


@settings(max_examples=12, deadline=None)
@given(
    game=st.sampled_from(list(GAMES.values())),
    seed=st.binary(min_size=8, max_size=32),
    data=st.data(),
)
def test_redacted_streams_add_up_over_random_seeds(game, seed, data) -> None:
    seats = data.draw(st.integers(game.min_seats, game.max_seats))
    options = data.draw(st.sampled_from(list(game.option_examples)))
    assert _play_and_watch(game, seats, options, seed) > 1
