"""Who plays a seat, as events in the game's own log, for every game alike (issue 44).

A player resigns, a table's clock hands a silent seat to a stand-in bot, drops it, or asks the others to
vote the game to an end; a player whose seat a bot took takes it back. Each is a command decided here, once
for the three games (``with_seat_control`` wraps a game's record), and an event in the game's log: hashed in
the chain, exported, archived and decided again by ``verify`` like any move, so a resignation is provable
from the export alone. The facts are folded into ``SeatControl``, a field every game's state carries
(``seat_control``); the game's own rules never read it.

``TimeOutSeat`` is the clock's alone (origin ``clock``, id ``clock-…``: ``events/command_ids.py``); the
gateway refuses it from players and ``verify`` checks its origin. A vote that passes ends the game with
``GameEndedByVote``: the present seats ranked by their money at that moment (``standing``), the absent seats
after them (``docs/guide.md``, "Table clocks").
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

import msgspec

from domain.engine import Command, Event, Game, Outcome, Rng, RuleViolation, Seat

TimeoutChoice = Literal["bot", "drop", "vote"]


class SeatControl(msgspec.Struct, frozen=True, kw_only=True):
    """The seat facts of the log: empty in every game until one of the events below."""

    resigned: tuple[int, ...] = ()
    away: tuple[int, ...] = ()
    """Handed to the stand-in bot by the clock and not taken back."""
    dropped: tuple[int, ...] = ()
    vote_on: int | None = None
    """The absent seat an open vote to end is about (``None``: no vote open)."""
    voters: tuple[int, ...] = ()
    votes: tuple[tuple[int, bool], ...] = ()
    ended: Outcome | None = None
    """The outcome a vote ended the game with."""

    def absent(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.resigned) | set(self.away) | set(self.dropped)))


NO_CONTROL = SeatControl()


# --- commands (the tags are the games' too: none of them uses these names) ------------------------------


class Resign(Command, frozen=True, kw_only=True):
    """The player leaves for good: a stand-in bot plays the seat to the end, rated as a loss."""


class TakeSeatBack(Command, frozen=True, kw_only=True):
    """The player whose seat the clock handed to a bot plays it again."""


class TimeOutSeat(Command, frozen=True, kw_only=True):
    """The clock's, after a seat's timeout: what the table was opened with happens to the seat.
    ``voters``: for ``vote``, the seats that vote (the players present; no bot votes)."""

    then: TimeoutChoice
    voters: tuple[int, ...] = ()


class VoteToEnd(Command, frozen=True, kw_only=True):
    """A present player's vote in an open vote to end the game."""

    end: bool


SEAT_COMMANDS = (Resign, TakeSeatBack, TimeOutSeat, VoteToEnd)
CLOCK_ONLY = frozenset({"TimeOutSeat"})
"""Command types no player may send (the gateway refuses them; ``verify`` checks their origin)."""
OWN_ENDPOINTS = frozenset({"Resign", "TakeSeatBack", "VoteToEnd"})
"""A player's seat commands, taken only by their endpoints (``/api/games/{id}/resign``, ``/take-back``,
``/vote``), which check that a table made the game: in a tournament's or a bare game no stand-in bot would
play a resigned seat, and its clock would never time it out."""


# --- events ---------------------------------------------------------------------------------------------


class SeatResigned(Event, frozen=True, kw_only=True):
    seat: int


class SeatHandedToBot(Event, frozen=True, kw_only=True):
    seat: int


class SeatDropped(Event, frozen=True, kw_only=True):
    seat: int


class SeatTakenBack(Event, frozen=True, kw_only=True):
    seat: int


class EndVoteOpened(Event, frozen=True, kw_only=True):
    """The clock timed ``seat`` out at a table whose others vote; the stand-in bot plays it meanwhile."""

    seat: int
    voters: tuple[int, ...]


class EndVoteCast(Event, frozen=True, kw_only=True):
    seat: int
    end: bool


class EndVoteClosed(Event, frozen=True, kw_only=True):
    """The vote failed (no majority to end can be reached any more): the game goes on."""

    seat: int


class GameEndedByVote(Event, frozen=True, kw_only=True):
    """A majority of the voters ended the game: ``outcome`` is its result."""

    outcome: Outcome


SEAT_EVENTS = (
    SeatResigned, SeatHandedToBot, SeatDropped, SeatTakenBack, EndVoteOpened, EndVoteCast, EndVoteClosed,
    GameEndedByVote,
)  # fmt: skip
SEAT_EVENT_TYPES = frozenset(cls.__name__ for cls in SEAT_EVENTS)


# --- deciding --------------------------------------------------------------------------------------------


def _refuse(code: str, message: str) -> typing.NoReturn:
    raise RuleViolation(f"seat.{code}", message)


def decide_seat(control: SeatControl, over: bool, seats: int, seat: Seat, command: Any) -> list[Event]:
    """A seat command's events in a game whose seat facts are ``control`` (``over``: it has ended)."""
    if over:
        _refuse("game_over", "the game is over")
    if isinstance(command, Resign):
        if seat in control.resigned:
            _refuse("resigned", "this seat has resigned already")
        return [SeatResigned(seat=seat)]
    if isinstance(command, TakeSeatBack):
        if seat in control.resigned:
            _refuse("resigned", "a resigned seat is the bot's to the end")
        if seat not in control.away:
            _refuse("not_away", "no bot plays this seat")
        back: list[Event] = [SeatTakenBack(seat=seat)]
        # the player the others were voting about is back: there is nothing left to vote on
        return [*back, EndVoteClosed(seat=seat)] if control.vote_on == seat else back
    if isinstance(command, TimeOutSeat):
        return _time_out(control, seats, seat, command)
    assert isinstance(command, VoteToEnd)
    return _vote(control, seat, command.end)


def _time_out(control: SeatControl, seats: int, seat: Seat, command: TimeOutSeat) -> list[Event]:
    if seat in control.absent():
        _refuse("absent", "this seat is played by a bot or dropped already")
    if command.then == "bot":
        return [SeatHandedToBot(seat=seat)]
    if command.then == "drop":
        return [SeatDropped(seat=seat)]
    if control.vote_on is not None:
        _refuse("vote_open", "a vote to end is open already")
    voters = tuple(sorted(set(command.voters)))
    if seat in voters or any(not 0 <= v < seats for v in voters):
        _refuse("bad_voters", "the voters are the other seats")
    # the seat is the bot's while the others vote; with nobody to vote, that is all
    opened: list[Event] = [SeatHandedToBot(seat=seat)]
    return [*opened, EndVoteOpened(seat=seat, voters=voters)] if voters else opened


def _vote(control: SeatControl, seat: Seat, end: bool) -> list[Event]:
    if control.vote_on is None:
        _refuse("no_vote", "no vote to end is open")
    if seat not in control.voters:
        _refuse("not_a_voter", "this seat does not vote")
    if any(voter == seat for voter, _ in control.votes):
        _refuse("voted", "this seat has voted already")
    votes = (*control.votes, (seat, end))
    yes = sum(1 for _, said in votes if said)
    no = len(votes) - yes
    cast: list[Event] = [EndVoteCast(seat=seat, end=end)]
    if 2 * yes > len(control.voters):
        return [
            *cast,
            GameEndedByVote(outcome=_PLACEHOLDER),
        ]  # its outcome is the game's: filled by the caller
    if 2 * no >= len(control.voters):  # a majority to end can no longer be reached
        return [*cast, EndVoteClosed(seat=control.vote_on)]
    return cast


_PLACEHOLDER = Outcome(ranking=(), scores=(), winners=())


def voted_outcome(scores: tuple[int, ...], absent: tuple[int, ...]) -> Outcome:
    """The result of a game ended by vote: the present seats by ``scores`` (most first, a tie shared, the
    lower seat listed first), then the absent ones by the same order."""

    def order(seats: list[int]) -> list[int]:
        return sorted(seats, key=lambda s: (-scores[s], s))

    present = order([s for s in range(len(scores)) if s not in absent])
    ranking = (*present, *order(list(absent)))
    top = scores[ranking[0]] if present else None
    winners = tuple(s for s in present if scores[s] == top) or ranking[:1]
    return Outcome(
        ranking=ranking, scores=scores, winners=winners, tie_break="ended by a vote of the players"
    )


# --- folding ---------------------------------------------------------------------------------------------


def evolve_seat(control: SeatControl, event: Event) -> SeatControl:
    """``control`` after one seat event."""
    if isinstance(event, SeatResigned):
        return replace_control(control, resigned=_with(control.resigned, event.seat),
                               away=_without(control.away, event.seat))  # fmt: skip
    if isinstance(event, SeatHandedToBot):
        return replace_control(control, away=_with(control.away, event.seat))
    if isinstance(event, SeatDropped):
        return replace_control(control, dropped=_with(control.dropped, event.seat))
    if isinstance(event, SeatTakenBack):
        return replace_control(control, away=_without(control.away, event.seat))
    if isinstance(event, EndVoteOpened):
        return replace_control(control, vote_on=event.seat, voters=event.voters, votes=())
    if isinstance(event, EndVoteCast):
        return replace_control(control, votes=(*control.votes, (event.seat, event.end)))
    if isinstance(event, EndVoteClosed):
        return replace_control(control, vote_on=None, voters=(), votes=())
    assert isinstance(event, GameEndedByVote)
    return replace_control(control, ended=event.outcome, vote_on=None)


def replace_control(control: SeatControl, **changes: Any) -> SeatControl:
    return msgspec.structs.replace(control, **changes)


def _with(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(sorted({*seats, seat}))


def _without(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(s for s in seats if s != seat)


# --- the wrapped game ------------------------------------------------------------------------------------

Standing = Callable[[Any], tuple[int, ...]]
"""A game's score of each seat mid-game (the vote's ranking): its money, as ``seat_standing`` says."""


def control_of(state: Any) -> SeatControl:
    return state.seat_control if state is not None else NO_CONTROL


def with_seat_control(game: Game[Any, Any, Any, Any], standing: Standing) -> Game[Any, Any, Any, Any]:
    """``game`` with the seat commands and events: its state must carry ``seat_control: SeatControl``."""
    inner = game

    def decide(state: Any, seat: Seat, command: Any, rng: Rng) -> list[Any]:
        control = control_of(state)
        if isinstance(command, SEAT_COMMANDS):
            over = control.ended is not None or inner.outcome(state) is not None
            events = decide_seat(control, over, state.seats, seat, command)
            if events and isinstance(events[-1], GameEndedByVote):
                ended = voted_outcome(standing(state), control.absent())
                events[-1] = GameEndedByVote(outcome=ended)
            return events
        if control.ended is not None:
            _refuse("game_over", "the game was ended by a vote")
        return inner.decide(state, seat, command, rng)

    def evolve(state: Any, event: Any) -> Any:
        if isinstance(event, SEAT_EVENTS):
            changes: dict[str, Any] = {"seat_control": evolve_seat(control_of(state), event)}
            if getattr(state, "undo", None) is not None:  # who plays a seat is never taken back with a move
                changes["undo"] = None  # (``domain/take_back.py``: this layer is the outer one)
            return msgspec.structs.replace(state, **changes)
        return inner.evolve(state, event)

    def outcome(state: Any) -> Outcome | None:
        ended = control_of(state).ended
        return ended if ended is not None else inner.outcome(state)

    def to_act(state: Any) -> frozenset[Seat]:
        return frozenset() if control_of(state).ended is not None else inner.to_act(state)

    def legal_commands(state: Any, seat: Seat) -> list[Any]:
        return [] if control_of(state).ended is not None else inner.legal_commands(state, seat)

    def redact(event: Any, seat: Seat | None) -> Any:
        return event if isinstance(event, SEAT_EVENTS) else inner.redact(event, seat)

    folded = getattr(game, "decide_folded", None)  # a search's step (issue 45), where a game has one

    def decide_folded(state: Any, seat: Seat, command: Any, rng: Rng) -> tuple[list[Any], Any]:
        if isinstance(command, SEAT_COMMANDS) or control_of(state).ended is not None or folded is None:
            events = decide(state, seat, command, rng)
            for event in events:
                state = evolve(state, event)
            return events, state
        return folded(state, seat, command, rng)  # type: ignore[no-any-return]

    extra: dict[str, Any] = {"decide_folded": decide_folded} if folded is not None else {}
    return replace(
        game,
        **extra,
        Command=typing.Union[(*typing.get_args(game.Command), *SEAT_COMMANDS)],
        Event=typing.Union[(*typing.get_args(game.Event), *SEAT_EVENTS)],
        decide=decide,
        evolve=evolve,
        outcome=outcome,
        to_act=to_act,
        legal_commands=legal_commands,
        redact=redact,
    )
