"""Property tests: random legal games finish; pesos in hands plus the office's net flow are conserved at
every step; replay is identical; a spectator never sees whose shares are whose; ``legal_commands`` and
``decide`` agree both ways."""

from __future__ import annotations

import itertools
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.engine import Rng, RuleViolation, rng_for
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila.bots import random_bot
from domain.manila.state import State

SEEDS = st.binary(min_size=8, max_size=32)
SEATS = st.sampled_from([3, 4, 5])
OPTIONS = st.sampled_from([{}, {"variant_boarding": True}, {"deal": "three_of_each"}])


def _conserved(state: State) -> None:
    assert sum(p.cash for p in state.players) == data.START_CASH * state.seats + state.office_net
    assert all(p.cash >= 0 for p in state.players)  # forced pledging always covers a payment
    held = [g for p in state.players for g in (*p.shares, *p.mortgaged)]
    for i, good in enumerate(data.GOODS):
        assert held.count(good) + state.supply[i] == data.SHARES_PER_GOOD


def _next_move(state: State, bot_rng: Rng) -> tuple[int, Any]:
    """Mostly the acting seat's random move; now and then a loan or repayment by a seat out of turn
    (README decision 11), so every property also covers loans sent by seats that are not to act."""
    (acting,) = GAME.to_act(state)
    other = bot_rng.randint(0, state.seats - 1)
    if other != acting and bot_rng.randint(0, 3) == 0:
        offered = GAME.legal_commands(state, other)
        assert all(isinstance(c, cmd.TakeLoan | cmd.RepayLoan) for c in offered)
        if offered:
            return other, bot_rng.choice(offered)
    return acting, random_bot(state, acting, bot_rng)


def _random_game(
    seats: int, options: dict[str, Any], seed: bytes, check: Any = None
) -> tuple[State, list[Any]]:
    state, events = GAME.start(seats, options, seed)
    bot_rng = Rng(seed.ljust(32, b"\x00")[:32])
    while GAME.outcome(state) is None:
        seat, command = _next_move(state, bot_rng)
        new = GAME.decide(state, seat, command, rng_for(seed, len(events) + 1))
        for event in new:
            state = GAME.evolve(state, event)
            if check is not None:
                check(state)
        events.extend(new)
        assert len(events) < 20_000
    return state, events


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, seats=SEATS, options=OPTIONS)
def test_random_games_finish_and_conserve_pesos_and_shares_at_every_step(seed, seats, options):
    state, _ = _random_game(seats, options, seed, check=_conserved)
    assert GAME.outcome(state) is not None and GAME.to_act(state) == frozenset()
    assert max(state.market) == data.MARKET_END_INDEX


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, seats=SEATS, options=OPTIONS)
def test_replaying_the_events_gives_an_identical_state(seed, seats, options):
    state, events = _random_game(seats, options, seed)
    assert msgspec.msgpack.encode(GAME.fold(events)) == msgspec.msgpack.encode(state)
    decoded = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=GAME.State)
    assert decoded == state


def _swap_hands(state: State, a: int, b: int) -> State:
    """The same table with two players' secret hands exchanged (counts equal, supply unchanged)."""
    pa, pb = state.players[a], state.players[b]
    if (len(pa.shares), len(pa.mortgaged)) != (len(pb.shares), len(pb.mortgaged)):
        return state
    players = list(state.players)
    players[a] = replace(pa, shares=pb.shares, mortgaged=pb.mortgaged)
    players[b] = replace(pb, shares=pa.shares, mortgaged=pa.mortgaged)
    return replace(state, players=tuple(players))


def _pairs_with_equal_counts(state: State) -> list[tuple[int, int]]:
    counts = [(len(p.shares), len(p.mortgaged)) for p in state.players]
    return [(a, b) for a, b in itertools.combinations(range(state.seats), 2) if counts[a] == counts[b]]


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, seats=SEATS, other=SEEDS)
def test_a_spectators_view_is_the_same_whatever_the_hidden_shares(seed, seats, other):
    _, events = _random_game(seats, {}, seed)
    enc = msgspec.json.encode
    for cut in (3, len(events) // 3, len(events) // 2):
        middle = GAME.fold(events[:cut])
        for a, b in _pairs_with_equal_counts(middle):
            swapped = _swap_hands(middle, a, b)
            assert enc(GAME.view(middle, None)) == enc(GAME.view(swapped, None))
            third = next(s for s in range(seats) if s not in (a, b))
            assert enc(GAME.view(middle, third)) == enc(GAME.view(swapped, third))
    # two different deals: the spectator's redacted hands are the same (the open supply is public, S0)
    first, second = GAME.setup(seats, {}, seed)[1], GAME.setup(seats, {}, other)[1]
    assert enc(GAME.redact(first, None).hands) == enc(GAME.redact(second, None).hands) == enc((None,) * seats)
    for event in events:
        hidden = GAME.redact(event, None)
        if type(event).__name__ in ("LoanTaken", "LoanRepaid"):
            assert hidden.good is None
            assert GAME.redact(event, event.seat) == event  # the owner sees his own share


def _universe(state: State) -> list[Any]:
    goods = [*data.GOODS, "tea"]
    out: list[Any] = [cmd.Bid(amount=a) for a in (0, 1, state.high_bid, state.high_bid + 1, 200)]
    out += [cmd.PassBid(), cmd.SkipShare(), cmd.PassPlacement(), cmd.PassPilot(), cmd.StayAboard()]
    out += [cmd.BuyShare(good=g) for g in goods] + [cmd.TakeLoan(good=g) for g in goods]
    out += [cmd.RepayLoan(good=g) for g in goods]
    out += [
        cmd.LoadBoats(left_ashore=g, starts=s) for g in goods[:2] for s in ((3, 3, 3), (5, 4, 1), (6, 3, 0))
    ]
    fields = [*data.GOODS, *data.HARBOUR_FIELDS, *data.SHIPYARD_FIELDS, *data.OTHER_FIELDS, "moon"]
    out += [cmd.PlaceAccomplice(field=f) for f in fields]
    out += [cmd.MoveBoats(moves=(cmd.PilotMove(good=g, steps=s),)) for g in goods for s in (-3, -2, -1, 1, 2)]
    out += [cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=1), cmd.PilotMove(good=g, steps=1)))
            for g in goods]  # fmt: skip
    out += [cmd.BoardBoat(good=g, displace=d) for g in goods for d in (None, 0, 1, 3)]
    out += [cmd.SendPlunderedBoat(good=g, to="harbour") for g in goods]
    out += [cmd.SendPlunderedBoat(good=g, to="shipyard") for g in goods]
    return out


@settings(max_examples=12, deadline=None)
@given(seed=SEEDS, seats=SEATS, options=OPTIONS)
def test_legal_commands_and_decide_agree_both_ways(seed, seats, options):
    state, events = GAME.start(seats, options, seed)
    picker = Rng(seed.rjust(32, b"\x01")[:32])
    while GAME.outcome(state) is None:
        rng = rng_for(seed, len(events) + 1)
        for seat in range(seats):
            legal = GAME.legal_commands(state, seat)
            for command in legal:
                GAME.decide(state, seat, command, rng_for(seed, len(events) + 1))
            for command in _universe(state):
                if command in legal:
                    continue
                try:
                    GAME.decide(state, seat, command, rng_for(seed, len(events) + 1))
                except RuleViolation:
                    continue
                raise AssertionError(f"seat {seat}: {command} accepted but not offered")
        seat, command = _next_move(state, picker)
        new = GAME.decide(state, seat, command, rng)
        state = GAME.fold(new, state)
        events.extend(new)


def _places_before(seats: int, roll: int) -> int:
    """Placement rounds the schedule has before dice round ``roll`` (all of them for roll 4)."""
    schedule = data.SCHEDULE[seats]
    rolls = [i for i, entry in enumerate(schedule) if entry == "roll"]
    cut = rolls[roll - 1] if roll <= len(rolls) else len(schedule)
    return schedule[:cut].count("place")


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, seats=SEATS, options=OPTIONS)
def test_every_voyage_has_three_rolls_and_one_accomplice_per_seat_per_placement_round(seed, seats, options):
    """Unless all three boats were parked before roll 3 (S0 "Sobald … alle drei Kähne …"): then the
    rounds stop, after the roll that parked them or, parked by a pilot, after the last placement round."""
    _, events = _random_game(seats, options, seed)
    voyages: list[tuple[list[str], list[bool]]] = []
    state = None
    for event in events:
        state = GAME.evolve(state, event)
        if type(event).__name__ == "VoyageStarted":
            voyages.append(([], [False]))
        elif voyages:
            voyages[-1][0].append(type(event).__name__)
            parked = bool(state.boats) and all(b.berth for b in state.boats)
            voyages[-1][1][0] |= parked and state.rolls < data.ROLLS_PER_VOYAGE
    for names, (early,) in voyages:
        rolls = names.count("DiceRolled")
        assert rolls == data.ROLLS_PER_VOYAGE or early
        pilots = "BoatsPiloted" in names or "PilotPassed" in names
        rounds = _places_before(seats, rolls if early and not pilots else rolls + 1)
        assert names.count("AccomplicePlaced") + names.count("PlacementPassed") == rounds * seats
        assert names.count("HarbourMasterChosen") == 1 and names.count("MarketRose") == 1
