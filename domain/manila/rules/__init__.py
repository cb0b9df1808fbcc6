"""Manila's rules: ``setup``, ``decide``, ``legal_commands``, ``to_act``, ``outcome``.

One module per rulebook phase: ``auction`` (1), ``office`` (2), ``placement`` and ``voyage`` (3),
``payout`` (4, 5 and the game end), ``loans`` (at any time). ``decide`` validates a command, then
*settles*: it appends every automatic consequence (dice, plunder, payouts, the next voyage) so that a
state in which nobody is to act never outlives one ``decide`` call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.engine import Outcome, Rng, check_known_options, check_seat_count, rng_for
from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.evolve import evolve
from domain.manila.rules import auction, loans, office, payout, placement, voyage
from domain.manila.rules.common import refuse
from domain.manila.state import State

OPTIONS = ("variant_boarding", "deal")
DEALS = ("all_twenty", "three_of_each")


def _deal(seats: int, deal: str, rng: Rng) -> ev.SharesDealt:
    per_good = data.THREE_OF_EACH if deal == "three_of_each" else data.SHARES_PER_GOOD
    pile = rng.shuffled([g for g in data.GOODS for _ in range(per_good)])
    hands = tuple(tuple(pile[2 * s : 2 * s + data.START_SHARES]) for s in range(seats))
    dealt = [g for h in hands for g in h]
    supply = tuple(data.SHARES_PER_GOOD - dealt.count(g) for g in data.GOODS)
    return ev.SharesDealt(hands=hands, supply=supply)


def setup(seats: int, options: Mapping[str, Any], seed: bytes) -> list[ev.ManilaEvent]:
    """Seats, options, the secret deal of two shares each; the oldest player (seat 0) opens the auction."""
    check_seat_count(data.GAME_KEY, seats, data.MIN_PLAYERS, data.MAX_PLAYERS)
    check_known_options(data.GAME_KEY, options, OPTIONS)
    variant = options.get("variant_boarding", False)
    deal = options.get("deal", "all_twenty")
    if not isinstance(variant, bool) or deal not in DEALS:
        refuse("bad_option", f"variant_boarding is true/false; deal is one of {', '.join(DEALS)}")
    rng = rng_for(seed, 1)
    return [
        ev.GameStarted(seats=seats, variant_boarding=variant, deal=deal),
        _deal(seats, deal, rng),
        ev.VoyageStarted(voyage=1, opener=0),
    ]


def to_act(state: State) -> frozenset[int]:
    """The one seat that must act now (empty once the game is over)."""
    seat: int | None = None
    if state.phase == "auction":
        seat = state.bidder
    elif state.phase in ("buy_share", "load"):
        seat = state.harbour_master
    elif state.phase == "place":
        seat = state.placer
    elif state.phase == "pilot":
        seat = voyage.pilot_seat(state)
    elif state.phase == "boarding":
        seat = voyage.deciding_pirate(state)
    elif state.phase == "captain":
        seat = state.pirates[0]
    return frozenset() if seat is None else frozenset((seat,))


_PHASE_LEGAL: dict[str, Callable[[State, int], list[cmd.ManilaCommand]]] = {
    "auction": auction.legal,
    "buy_share": office.legal,
    "load": office.legal,
    "place": placement.legal,
    "pilot": voyage.legal,
    "boarding": voyage.legal,
    "captain": voyage.legal,
}


def legal_commands(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """Every legal command for ``seat``: the phase's choices (acting seat only), then loans and repayments.

    Loans are open to every seat until the game ends (S0 "Kredit aufnehmen": "jederzeit"; README
    decision 11), so a seat that is not to act is offered its pledges and repayments only.
    """
    if state.phase == "over" or not 0 <= seat < state.seats:
        return []
    choices = _PHASE_LEGAL[state.phase](state, seat) if seat in to_act(state) else []
    return [*choices, *loans.legal(state, seat)]


def _handler(command: cmd.ManilaCommand) -> Callable[[Any, int, Any], list[ev.ManilaEvent]] | None:
    """The rule deciding ``command``, or None for a command not of this game (``match``, as in every game)."""
    match command:
        case cmd.Bid():
            return auction.decide_bid
        case cmd.PassBid():
            return auction.decide_pass_bid
        case cmd.BuyShare():
            return office.decide_buy_share
        case cmd.SkipShare():
            return office.decide_skip_share
        case cmd.LoadBoats():
            return office.decide_load_boats
        case cmd.PlaceAccomplice():
            return placement.decide_place
        case cmd.PassPlacement():
            return placement.decide_pass
        case cmd.MoveBoats():
            return voyage.decide_move_boats
        case cmd.PassPilot():
            return voyage.decide_pass_pilot
        case cmd.BoardBoat():
            return voyage.decide_board
        case cmd.StayAboard():
            return voyage.decide_stay
        case cmd.SendPlunderedBoat():
            return voyage.decide_send
        case cmd.TakeLoan():
            return loans.decide_take
        case cmd.RepayLoan():
            return loans.decide_repay
    return None


_PHASE_OF: dict[type, tuple[str, ...]] = {
    cmd.Bid: ("auction",),
    cmd.PassBid: ("auction",),
    cmd.BuyShare: ("buy_share",),
    cmd.SkipShare: ("buy_share",),
    cmd.LoadBoats: ("load",),
    cmd.PlaceAccomplice: ("place",),
    cmd.PassPlacement: ("place",),
    cmd.MoveBoats: ("pilot",),
    cmd.PassPilot: ("pilot",),
    cmd.BoardBoat: ("boarding",),
    cmd.StayAboard: ("boarding",),
    cmd.SendPlunderedBoat: ("captain",),
}

# Commands any seat may send while another seat is to act: they never change whose turn it is.
_ANY_TIME: frozenset[type] = frozenset({cmd.TakeLoan, cmd.RepayLoan})


def _automatic(state: State, rng: Rng) -> list[ev.ManilaEvent]:
    """What happens next without anyone choosing, or nothing when a seat must act."""
    phase = state.phase
    if phase == "auction":
        return auction.automatic(state)
    if phase == "roll":
        return voyage.roll(state, rng)
    if phase == "boarding":
        return voyage.forced_stay(state)
    if phase == "plunder":
        return voyage.plunder(state)
    if phase == "berth":
        return payout.berth(state)
    if phase == "payout":
        return payout.payouts(state)
    if phase == "voyage_end":
        return payout.voyage_end(state)
    return []


def _settle(state: State, events: list[ev.ManilaEvent], rng: Rng) -> tuple[list[ev.ManilaEvent], State]:
    for e in events:
        state = evolve(state, e)
    while more := _automatic(state, rng):
        for e in more:
            state = evolve(state, e)
        events.extend(more)
    return events, state


def decide(state: State, seat: int, command: cmd.ManilaCommand, rng: Rng) -> list[ev.ManilaEvent]:
    """Validate ``command`` for ``seat`` and return its events with every automatic consequence."""
    return decide_and_fold(state, seat, command, rng)[0]


def decide_and_fold(
    state: State, seat: int, command: cmd.ManilaCommand, rng: Rng
) -> tuple[list[ev.ManilaEvent], State]:
    """``decide``, with the state its events lead to: settling folds them anyway, so a search need not
    fold them a second time (``Game.decide_folded``, issue 45)."""
    if state.phase == "over":
        refuse("game_over", "the game is over")
    if not 0 <= seat < state.seats:
        refuse("no_such_seat", f"there is no seat {seat} at this table")
    handler = _handler(command)
    if handler is None:
        refuse("unknown_command", f"{type(command).__name__} is not a Manila command")
    if type(command) not in _ANY_TIME and seat not in to_act(state):
        refuse("not_your_turn", f"seat {seat} is not to act now")
    phases = _PHASE_OF.get(type(command))
    if phases is not None and state.phase not in phases:
        refuse("wrong_phase", f"{type(command).__name__} is not possible in the {state.phase} phase")
    return _settle(state, handler(state, seat, command), rng)


def outcome(state: State) -> Outcome | None:
    """The final ranking once the game has ended."""
    return state.result


__all__ = ["decide", "decide_and_fold", "legal_commands", "outcome", "setup", "to_act"]
