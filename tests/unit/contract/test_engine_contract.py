"""The engine contract (docs/design-brief.md), checked once for every game in ``domain.GAMES`` and the test
game.

Every game must: refuse unknown options and seat counts; set up deterministically; round-trip every
command, event and view through msgspec; never mutate the state in ``decide``; accept every command
that ``legal_commands`` offers; finish a random game; and replay its events to an identical state.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import GAMES, Game, RuleViolation
from domain.engine import Rng, play_out, rng_for
from tests.support.counter_game import GAME as COUNTER_GAME
from tests.support.minimal_game import GAME as MINIMAL_GAME

ALL_GAMES: list[Game[Any, Any, Any, Any]] = [*GAMES.values(), MINIMAL_GAME, COUNTER_GAME]


def _cases() -> list[Any]:
    cases = []
    for game in ALL_GAMES:
        for seats in range(game.min_seats, game.max_seats + 1):
            for index, options in enumerate(game.option_examples):
                cases.append(pytest.param(game, seats, options, id=f"{game.key}-{seats}p-opt{index}"))
    return cases


def random_bot(game: Game[Any, Any, Any, Any]) -> Any:
    def choose(state: Any, seat: int, rng: Rng) -> Any:
        return rng.choice(game.legal_commands(state, seat))

    return choose


@pytest.mark.parametrize(("game", "seats", "options"), _cases())
def test_random_game_finishes_and_replays_identically(game, seats, options) -> None:
    seed = f"contract-{game.key}-{seats}".encode()
    played = play_out(game, seats, options, seed, [random_bot(game)] * seats)
    assert game.outcome(played.state) is not None
    replayed = game.fold(played.events)
    assert msgspec.msgpack.encode(replayed) == msgspec.msgpack.encode(played.state)
    again = play_out(game, seats, options, seed, [random_bot(game)] * seats)
    assert msgspec.msgpack.encode(again.events) == msgspec.msgpack.encode(played.events)


@pytest.mark.parametrize(("game", "seats", "options"), _cases())
def test_every_message_round_trips_through_msgspec(game, seats, options) -> None:
    seed = f"codec-{game.key}".encode()
    played = play_out(game, seats, options, seed, [random_bot(game)] * seats, max_commands=400_000)
    event_decoder = msgspec.json.Decoder(game.Event)
    for event in played.events:
        assert event_decoder.decode(msgspec.json.encode(event)) == event
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(event), type=game.Event) == event
    state = game.fold(played.events[:-1])
    for seat in [None, *range(seats)]:
        view = game.view(state, seat)
        assert msgspec.json.decode(msgspec.json.encode(view), type=game.View) == view
    snapshot = msgspec.msgpack.encode(state)
    assert msgspec.msgpack.decode(snapshot, type=game.State) == state


@pytest.mark.parametrize(("game", "seats", "options"), _cases())
def test_legal_commands_are_accepted_and_decide_never_mutates(game, seats, options) -> None:
    seed = f"legal-{game.key}".encode()
    state, events = game.start(seats, options, seed)
    picker = Rng(b"\x01" * 32)
    command_decoder = msgspec.json.Decoder(game.Command)
    steps = 0
    while game.outcome(state) is None and steps < 300:
        seat = sorted(game.to_act(state))[0]
        legal = game.legal_commands(state, seat)
        assert legal, f"seat {seat} must act but has no legal command"
        before = msgspec.msgpack.encode(state)
        for command in picker.sample(legal, min(len(legal), 8)):
            assert command_decoder.decode(msgspec.json.encode(command)) == command
            game.decide(state, seat, command, rng_for(seed, len(events) + 1))
            assert msgspec.msgpack.encode(state) == before, "decide mutated the state"
        chosen = picker.choice(legal)
        new_events = game.decide(state, seat, chosen, rng_for(seed, len(events) + 1))
        state = game.fold(new_events, state)
        events.extend(new_events)
        steps += 1


@pytest.mark.parametrize("game", ALL_GAMES, ids=lambda g: g.key)
def test_unknown_options_and_seat_counts_are_refused(game) -> None:
    with pytest.raises(RuleViolation):
        game.setup(game.min_seats, {"no_such_option": True}, b"seed")
    with pytest.raises(RuleViolation):
        game.setup(game.max_seats + 1, {}, b"seed")
    with pytest.raises(RuleViolation):
        game.setup(game.min_seats - 1, {}, b"seed")


@pytest.mark.parametrize("game", ALL_GAMES, ids=lambda g: g.key)
def test_setup_is_a_function_of_the_seed(game) -> None:
    a = game.setup(game.max_seats, {}, b"one seed")
    b = game.setup(game.max_seats, {}, b"one seed")
    assert msgspec.msgpack.encode(a) == msgspec.msgpack.encode(b)


@pytest.mark.parametrize("game", ALL_GAMES, ids=lambda g: g.key)
def test_a_finished_game_refuses_every_command(game) -> None:
    seed = b"finished"
    played = play_out(game, game.min_seats, {}, seed, [random_bot(game)] * game.min_seats)
    assert game.to_act(played.state) == frozenset()
    last_state = game.fold(played.events[:-1])
    acting = sorted(game.to_act(last_state))
    if acting:
        for command in game.legal_commands(last_state, acting[0])[:3]:
            with pytest.raises(RuleViolation):
                game.decide(played.state, acting[0], command, rng_for(seed, len(played.events) + 1))


@pytest.mark.parametrize(("game", "seats", "options"), _cases())
def test_play_returns_decide_and_its_fold(game, seats, options) -> None:
    """``Game.play`` (a search's step; a game's ``decide_folded`` hands back the state its ``decide`` folded
    anyway, issue 45) returns exactly ``decide``'s events and ``fold`` of them, on every position."""
    seed = f"play-{game.key}".encode()
    state, events = game.start(seats, options, seed)
    picker = Rng(b"\x02" * 32)
    while game.outcome(state) is None:
        seat = sorted(game.to_act(state))[0]
        command = picker.choice(game.legal_commands(state, seat))
        decided = game.decide(state, seat, command, rng_for(seed, len(events) + 1))
        played, reached = game.play(state, seat, command, rng_for(seed, len(events) + 1))
        state = game.fold(decided, state)
        assert msgspec.msgpack.encode(played) == msgspec.msgpack.encode(decided)
        assert msgspec.msgpack.encode(reached) == msgspec.msgpack.encode(state)
        events.extend(decided)
