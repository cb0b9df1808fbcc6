"""The seat commands and events every game shares (``domain/seat_control.py``): resigning, the clock's
hand-over to a bot, a drop, taking a seat back and a vote to end, decided and folded through each game's
wrapped record, and a whole game played to its end with them in its log, folded again to the same state."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import GAMES
from domain.engine import RuleViolation, decide_at
from domain.seat_control import (
    EndVoteCast,
    EndVoteClosed,
    GameEndedByVote,
    Resign,
    SeatDropped,
    SeatHandedToBot,
    SeatResigned,
    SeatTakenBack,
    TakeSeatBack,
    TimeOutSeat,
    VoteToEnd,
    voted_outcome,
)
from events import codec

SEED = b"seat-control-test-seed-000000000"
SEATS = {"manila": 3, "elcapitan": 3, "eic": 3}


def _start(key: str) -> tuple[Any, Any, list[Any]]:
    game = GAMES[key]
    state, events = game.start(SEATS[key], {}, SEED)
    return game, state, events


def _apply(game: Any, state: Any, events: list[Any], seat: int, command: Any) -> tuple[Any, list[Any]]:
    new = decide_at(game, state, seat, command, SEED, len(events))
    return game.fold(new, state), [*events, *new]


@pytest.mark.parametrize("key", sorted(GAMES))
def test_resign_is_an_event_folded_into_the_state(key: str) -> None:
    game, state, events = _start(key)
    state, events = _apply(game, state, events, 1, Resign())
    assert events[-1] == SeatResigned(seat=1)
    assert state.seat_control.resigned == (1,)
    with pytest.raises(RuleViolation) as refused:
        decide_at(game, state, 1, Resign(), SEED, len(events))
    assert refused.value.code == "seat.resigned"
    with pytest.raises(RuleViolation):  # resigning is final
        decide_at(game, state, 1, TakeSeatBack(), SEED, len(events))
    assert game.fold(events) == state  # a refold of the log reaches the same state


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_seat_handed_to_the_bot_is_taken_back(key: str) -> None:
    game, state, events = _start(key)
    with pytest.raises(RuleViolation) as refused:
        decide_at(game, state, 0, TakeSeatBack(), SEED, len(events))
    assert refused.value.code == "seat.not_away"
    state, events = _apply(game, state, events, 0, TimeOutSeat(then="bot"))
    assert events[-1] == SeatHandedToBot(seat=0) and state.seat_control.away == (0,)
    state, events = _apply(game, state, events, 0, TakeSeatBack())
    assert events[-1] == SeatTakenBack(seat=0) and state.seat_control.away == ()
    state, events = _apply(game, state, events, 2, TimeOutSeat(then="drop"))
    assert events[-1] == SeatDropped(seat=2) and state.seat_control.dropped == (2,)


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_majority_ends_the_game_with_the_absent_seat_last(key: str) -> None:
    game, state, events = _start(key)
    state, events = _apply(game, state, events, 1, TimeOutSeat(then="vote", voters=(0, 2)))
    assert state.seat_control.vote_on == 1 and state.seat_control.away == (1,)
    with pytest.raises(RuleViolation) as refused:
        decide_at(game, state, 1, VoteToEnd(end=True), SEED, len(events))
    assert refused.value.code == "seat.not_a_voter"
    state, events = _apply(game, state, events, 0, VoteToEnd(end=True))
    assert game.outcome(state) is None  # 1 of 2 is no majority
    state, events = _apply(game, state, events, 2, VoteToEnd(end=True))
    assert isinstance(events[-1], GameEndedByVote)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.ranking[-1] == 1
    assert game.to_act(state) == frozenset() and game.legal_commands(state, 0) == []
    with pytest.raises(RuleViolation):
        decide_at(game, state, 0, Resign(), SEED, len(events))
    assert game.fold(events) == state


def test_a_vote_that_cannot_pass_closes_and_the_game_goes_on() -> None:
    game, state, events = _start("manila")
    state, events = _apply(game, state, events, 1, TimeOutSeat(then="vote", voters=(0, 2)))
    state, events = _apply(game, state, events, 0, VoteToEnd(end=False))
    assert events[-2:] == [EndVoteCast(seat=0, end=False), EndVoteClosed(seat=1)]
    assert state.seat_control.vote_on is None and game.outcome(state) is None
    assert game.to_act(state)  # the game goes on, the absent seat the bot's
    assert state.seat_control.away == (1,)


def test_the_voted_outcome_shares_a_tie_and_puts_the_absent_last() -> None:
    outcome = voted_outcome((30, 50, 50, 90), absent=(3,))
    assert outcome.ranking == (1, 2, 0, 3)
    assert outcome.winners == (1, 2)


@pytest.mark.parametrize("key", sorted(GAMES))
def test_seat_events_round_trip_through_the_codec_and_redaction(key: str) -> None:
    game, state, events = _start(key)
    state, events = _apply(game, state, events, 0, Resign())
    payload = codec.encode_event(events[-1])
    decoded = msgspec.msgpack.decode(payload, type=game.Event)
    assert decoded == SeatResigned(seat=0)
    assert game.redact(decoded, 1) == decoded  # public: everyone sees who resigned
    assert codec.decode_command(game, b'{"type":"Resign"}') == Resign()


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_whole_game_with_a_resigned_seat_refolds_byte_identically(key: str) -> None:
    """The seat's moves after its resignation are the stand-in's: the game still runs to its end."""
    game, state, events = _start(key)
    bots = __import__(f"domain.{key}.bots", fromlist=["random_bot"])
    rng = __import__("domain.engine", fromlist=["Rng"]).Rng(b"k" * 32)
    state, events = _apply(game, state, events, 0, Resign())
    for _ in range(20_000):
        if game.outcome(state) is not None:
            break
        seat = min(game.to_act(state))
        state, events = _apply(game, state, events, seat, bots.random_bot(state, seat, rng))
    assert game.outcome(state) is not None
    assert state.seat_control.resigned == (0,)
    again = game.fold([msgspec.msgpack.decode(codec.encode_event(e), type=game.Event) for e in events])
    assert codec.canonical(again) == codec.canonical(state)


def test_the_absent_player_taking_the_seat_back_closes_the_vote() -> None:
    game, state, events = _start("eic")
    state, events = _apply(game, state, events, 1, TimeOutSeat(then="vote", voters=(0, 2)))
    state, events = _apply(game, state, events, 0, VoteToEnd(end=True))
    state, events = _apply(game, state, events, 1, TakeSeatBack())
    assert events[-2:] == [SeatTakenBack(seat=1), EndVoteClosed(seat=1)]
    assert state.seat_control.vote_on is None and state.seat_control.away == ()
    with pytest.raises(RuleViolation) as refused:
        decide_at(game, state, 2, VoteToEnd(end=True), SEED, len(events))
    assert refused.value.code == "seat.no_vote"
