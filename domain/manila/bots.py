"""Bot policies over ``legal_commands``: a random bot and a greedy bot (pure; rng passed in).

The greedy bot values each choice by a rough expectation: a boat's chance to arrive is the chance that
the remaining dice carry it past field 13; it never pledges shares voluntarily and bids low.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from msgspec.structs import replace

from domain.engine import Bot, Rng
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila.rules import legal_commands
from domain.manila.rules.placement import field_cost
from domain.manila.state import Boat, State, boat_of, share_value, sort_goods, wealth
from domain.search import Searcher, mostly, softmax, strong_bot

GREEDY_MAX_BID = 8


def random_bot(state: State, seat: int, rng: Rng) -> cmd.ManilaCommand:
    """Any legal command, uniformly."""
    return rng.choice(legal_commands(state, seat))


@cache
def _at_least(dice: int, need: int) -> float:
    """P(the sum of ``dice`` d6 is at least ``need``)."""
    if need <= 0:
        return 1.0
    if dice == 0:
        return 0.0
    return sum(_at_least(dice - 1, need - face) for face in range(1, 7)) / 6


def _arrival(state: State, boat: Boat) -> float:
    if boat.berth:
        return 1.0 if boat.berth == "harbour" else 0.0
    return _at_least(data.ROLLS_PER_VOYAGE - state.rolls, data.PIRATE_FIELD + 1 - boat.position)


def _count_at_least(probabilities: list[float], k: int) -> float:
    """P(at least ``k`` of independent events happen)."""
    dist = [1.0]
    for p in probabilities:
        nxt = [0.0] * (len(dist) + 1)
        for n, q in enumerate(dist):
            nxt[n] += q * (1 - p)
            nxt[n + 1] += q * p
        dist = nxt
    return sum(dist[k:])


def _held(state: State, seat: int, good: str) -> int:
    return state.players[seat].shares.count(good)


def _boat_value(state: State, seat: int, boat: Boat) -> float:
    """My stake in a boat arriving: my cargo share plus the rise of my shares."""
    aboard = [s for s in boat.seats if s is not None]
    mine = aboard.count(seat)
    cargo = data.CARGO_VALUE[boat.good] * mine / len(aboard) if aboard else 0.0
    return cargo + 5 * _held(state, seat, boat.good)


def _field_value(state: State, seat: int, field: str) -> float:
    arrivals = [_arrival(state, b) for b in state.boats]
    cost = field_cost(state, field) or 0
    if cost > state.players[seat].cash:
        return -100.0  # would force a pledge
    if field in data.GOODS:
        boat = boat_of(state, field)
        assert boat is not None
        aboard = 1 + sum(s is not None for s in boat.seats)
        return _arrival(state, boat) * data.CARGO_VALUE[field] / aboard - cost
    if field in data.HARBOUR_FIELDS:
        i = data.HARBOUR_FIELDS.index(field)
        return _count_at_least(arrivals, i + 1) * data.HARBOUR_PAYOUTS[i] - cost
    if field in data.SHIPYARD_FIELDS:
        i = data.SHIPYARD_FIELDS.index(field)
        return _count_at_least([1 - a for a in arrivals], i + 1) * data.SHIPYARD_PAYOUTS[i] - cost
    if field == "insurance":
        wrecks = [1 - a for a in arrivals]
        claims = sum(_count_at_least(wrecks, i + 1) * data.SHIPYARD_PAYOUTS[i] for i in range(3))
        return data.INSURANCE_INCOME - claims
    return -1.0 - cost  # pirates and pilots: speculative


def _score(state: State, seat: int, command: cmd.ManilaCommand) -> float:
    scorer = _SCORERS.get(type(command))
    return scorer(state, seat, command) if scorer is not None else 0.0


def _score_bid(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.Bid)
    affordable = c.amount <= min(state.players[seat].cash, GREEDY_MAX_BID)
    return 10.0 - c.amount if affordable else -50.0


def _score_buy(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.BuyShare)
    price = max(data.MIN_SHARE_PRICE, share_value(state, c.good))
    if price + 10 > state.players[seat].cash:
        return -50.0
    return 1.0 + share_value(state, c.good) / 5 + _held(state, seat, c.good)


def _score_load(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.LoadBoats)
    goods = [g for g in data.GOODS if g != c.left_ashore]
    return sum((1 + _held(state, seat, g)) * s * s for g, s in zip(goods, c.starts, strict=False))


def _score_place(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.PlaceAccomplice)
    return _field_value(state, seat, c.field)


def _score_pilot(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.MoveBoats)
    total = 0.0
    for move in c.moves:
        boat = boat_of(state, move.good)
        assert boat is not None
        before = _arrival(state, boat)
        after = _arrival(state, Boat(good=boat.good, position=boat.position + move.steps, seats=boat.seats))
        total += (after - before) * (_boat_value(state, seat, boat) - 5)
    return total


def _score_board(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.BoardBoat)
    return data.CARGO_VALUE[c.good] / 10


def _score_send(state: State, seat: int, c: cmd.ManilaCommand) -> float:
    assert isinstance(c, cmd.SendPlunderedBoat)
    stake = _held(state, seat, c.good) + sum(s == seat for s in state.harbour)
    return stake if c.to == "harbour" else sum(s == seat for s in state.shipyard) - 0.5


_SCORERS: dict[type, Callable[[State, int, cmd.ManilaCommand], float]] = {
    cmd.Bid: _score_bid,
    cmd.BuyShare: _score_buy,
    cmd.LoadBoats: _score_load,
    cmd.PlaceAccomplice: _score_place,
    cmd.MoveBoats: _score_pilot,
    cmd.BoardBoat: _score_board,
    cmd.SendPlunderedBoat: _score_send,
    cmd.TakeLoan: lambda s, seat, c: -1000.0,
    cmd.RepayLoan: lambda s, seat, c: -1000.0,
}


def greedy_bot(state: State, seat: int, rng: Rng) -> cmd.ManilaCommand:
    """The legal command with the best rough expectation (ties broken by ``rng``); passing scores 0."""
    options = legal_commands(state, seat)
    scored = [(_score(state, seat, c), i) for i, c in enumerate(options)]
    best = max(s for s, _ in scored)
    return options[rng.choice([i for s, i in scored if s == best])]


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}


# --- the search bot (issue 45) ---------------------------------------------------------------------------


def _unseen_shares(state: State, seat: int) -> list[str]:
    """The shares the other merchants hold, free or pledged, as ``seat`` can count them: every share of
    a good not in the supply and not its own (``SHARES_PER_GOOD`` of each)."""
    me = state.players[seat]
    pool: list[str] = []
    for index, good in enumerate(data.GOODS):
        held = data.SHARES_PER_GOOD - state.supply[index] - me.shares.count(good) - me.mortgaged.count(good)
        pool += [good] * held
    return pool


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state consistent with what ``seat`` sees: the others' shares dealt again at random from the
    shares it cannot place, each merchant keeping his counts of free and pledged shares."""
    pool = rng.shuffled(_unseen_shares(state, seat))
    players = []
    for s, p in enumerate(state.players):
        if s != seat:
            free, pool = pool[: len(p.shares)], pool[len(p.shares) :]
            pledged, pool = pool[: len(p.mortgaged)], pool[len(p.mortgaged) :]
            p = replace(p, shares=sort_goods(free), mortgaged=sort_goods(pledged))
        players.append(p)
    return replace(state, players=tuple(players))


def prospects(state: State) -> list[float]:
    """Each merchant's share of the win from his wealth now (cash, shares at market value, loans)."""
    return softmax([float(wealth(state, p)) for p in state.players], 12.0)


def _paid_out(start: State, now: State) -> bool:
    """Money moves at a voyage's end: a rollout is valued once the voyage it started in was paid out."""
    return now.voyage != start.voyage and now.phase == "auction"


def shortlist(state: State, seat: int, legal: list[cmd.ManilaCommand]) -> list[cmd.ManilaCommand]:
    """The commands worth comparing with the greedy one, best first by its score; in the auction also
    passing and the bid that tops what a greedy merchant ever bids (its lowest bids differ by a peso)."""
    ranked = sorted(legal, key=lambda c: -_score(state, seat, c))
    if state.phase != "auction":
        return ranked
    topping = cmd.Bid(amount=max(GREEDY_MAX_BID + 1, state.high_bid + 1))
    return [c for c in (cmd.PassBid(), topping) if c in legal] + ranked


SEARCHER = Searcher(
    game=GAME,
    determinize=determinize,
    rollout=mostly(greedy_bot, random_bot),
    guide=greedy_bot,
    value=prospects,
    rollout_depth=80,
    horizon=_paid_out,
    shortlist=shortlist,
    candidates=4,
    margin=0.0,
)
STRONG_ITERATIONS = 60
"""Iterations of the ``strong`` bot a move as seated (see docs/benchmarks.md)."""
BOTS["strong"] = strong_bot(SEARCHER, STRONG_ITERATIONS)
