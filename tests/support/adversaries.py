"""Players that push a game's state where its rule computations are largest (issue 32).

A *hoarder* gathers whatever the game lets it gather and spends nothing it can keep: in El Capitán it buys
every card it can, takes every loan and builds only when the rules force it; in East India Companies it
buys every share and ship it can, pledges its start shares, loads full and stores all it can; in Manila it
pledges every share and bids nothing, so its cash grows. A *random* player chooses uniformly among the
legal commands. :func:`explore` plays a game with a mix of both and measures, in every state it passes,
``legal_commands`` of every seat and the ``decide`` of the command chosen.

Used by ``tests/unit/contract/test_bounded_rules.py`` (which asserts the size bound) and by
``tests/bench/bench_rules_bound.py`` (which prints the sizes and the slowest calls).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain import GAMES, Game
from domain.eic import commands as eic
from domain.elcapitan import commands as elc
from domain.engine import Options, Rng, rng_for
from domain.manila import commands as manila

Policy = Callable[[Game[Any, Any, Any, Any], Any, int, list[Any], Rng], Any]
"""``(game, state, seat, legal, rng) -> command``, one of ``legal``."""


def random_player(game: Game[Any, Any, Any, Any], state: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
    return rng.choice(legal)


def _first(legal: list[Any], *kinds: type) -> list[Any]:
    return [c for c in legal if isinstance(c, kinds)]


def _elcapitan_hoarder(
    game: Game[Any, Any, Any, Any], state: Any, seat: int, legal: list[Any], rng: Rng
) -> Any:
    if state.stage == "loans":
        return (_first(legal, elc.ExtendLoan) or legal)[0]
    if state.stage != "turn":
        return rng.choice(legal)
    for kinds in ((elc.BuyCard,), (elc.TakeLoan,)):
        found = _first(legal, *kinds)
        if found:
            return rng.choice(found)
    pirate = [c for c in legal if isinstance(c, elc.MovePirate) and (c.free or c.cards)]
    if pirate and rng.random() < 0.5:
        return max(pirate, key=lambda c: len(c.cards))
    if elc.EndTurn() in legal:
        return elc.EndTurn()
    forced = [c for c in legal if not isinstance(c, elc.MovePirate)] or legal
    return rng.choice(forced)


def _eic_hoarder(game: Game[Any, Any, Any, Any], state: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
    for kinds in ((eic.PledgeStartShare,), (eic.BuyShare,)):
        found = _first(legal, *kinds)
        if found:
            return rng.choice(found)
    envoys = _first(legal, eic.PlaceEnvoy)
    gather = [c for c in envoys if c.ship or c.space in ("SHP_HARBOUR_EXT", "GOV_TRADING_POST")]
    if gather or envoys:
        return rng.choice(gather or envoys)
    loads = _first(legal, eic.LoadShip)
    if loads:
        return max(loads, key=lambda c: (sum(c.goods), c.goods))
    unloads = _first(legal, eic.UnloadShip)
    if unloads:
        return max(unloads, key=lambda c: (sum(c.store), c.store))
    sales = _first(legal, eic.SellFromWarehouse)
    if sales:
        return min(sales, key=lambda c: sum(c.goods))
    return rng.choice(legal)


def _manila_hoarder(game: Game[Any, Any, Any, Any], state: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
    loans = _first(legal, manila.TakeLoan)
    if loans:
        return loans[0]
    keep = _first(legal, manila.PassBid, manila.SkipShare, manila.PassPlacement, manila.PassPilot)
    if keep:
        return keep[0]
    bids = _first(legal, manila.Bid)
    if bids:
        return bids[-1]  # the opener of the first voyage must bid: the most it can
    return rng.choice(legal)


HOARDERS: dict[str, Policy] = {
    "elcapitan": _elcapitan_hoarder,
    "eic": _eic_hoarder,
    "manila": _manila_hoarder,
}


def _own_bot(key: str) -> Policy:
    """The game's own random bot (El Capitán's plays like a merchant: its games reach other states)."""
    from domain.eic.bots import BOTS as EIC_BOTS
    from domain.elcapitan.bots import BOTS as ELC_BOTS
    from domain.manila.bots import BOTS as MANILA_BOTS

    bot = {"elcapitan": ELC_BOTS, "eic": EIC_BOTS, "manila": MANILA_BOTS}[key]["random"]

    def play(game: Game[Any, Any, Any, Any], state: Any, seat: int, legal: list[Any], rng: Rng) -> Any:
        return bot(state, seat, rng)

    return play


MIXES = ("hoarders", "random", "hoarder-random", "hoarder-bot")
"""Who sits at the table: all hoarders, all uniform players, or hoarders (even seats) with uniform
players or the game's own random bot."""


def seating(key: str, mix: str, seats: int) -> list[Policy]:
    hoarder = HOARDERS[key]
    other = {"hoarders": hoarder, "random": random_player, "hoarder-random": random_player}.get(
        mix
    ) or _own_bot(key)
    return [hoarder if s % 2 == 0 and mix != "random" else other for s in range(seats)]


class Figures(msgspec.Struct, kw_only=True):
    """What one or more explored games showed."""

    states: int = 0
    largest: int = 0
    """The longest ``legal_commands`` list of any seat in any state."""
    largest_where: str = ""
    slowest_legal_s: float = 0.0
    slowest_legal_where: str = ""
    slowest_decide_s: float = 0.0
    slowest_decide_where: str = ""

    def merge(self, other: Figures) -> None:
        self.states += other.states
        if other.largest > self.largest:
            self.largest, self.largest_where = other.largest, other.largest_where
        if other.slowest_legal_s > self.slowest_legal_s:
            self.slowest_legal_s, self.slowest_legal_where = other.slowest_legal_s, other.slowest_legal_where
        if other.slowest_decide_s > self.slowest_decide_s:
            self.slowest_decide_s, self.slowest_decide_where = (
                other.slowest_decide_s,
                other.slowest_decide_where,
            )


def explore(
    key: str,
    seats: int,
    options: Options,
    seed: bytes,
    mix: str,
    max_commands: int = 1500,
    timed: bool = False,
) -> Figures:
    """Play one game (up to ``max_commands`` commands) and measure every state it passes."""
    game = GAMES[key]
    policies = seating(key, mix, seats)
    state, events = game.start(seats, options, seed)
    rng = Rng(hashlib.sha256(b"adversaries\x00" + seed).digest())
    out = Figures()
    label = f"{key} {seats}p {dict(options)} {mix} seed={seed.decode(errors='replace')}"
    clock: Callable[[], float] = time.perf_counter if timed else (lambda: 0.0)
    for _ in range(max_commands):
        if game.outcome(state) is not None:
            break
        out.states += 1
        acting = sorted(game.to_act(state))
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        chosen: list[Any] = []
        for s in range(seats):
            started = clock()
            legal = game.legal_commands(state, s)
            took = clock() - started
            if timed and took > out.slowest_legal_s:
                took = min(took, _least(lambda: game.legal_commands(state, s)))  # noqa: B023 (called now)
            if took > out.slowest_legal_s:
                out.slowest_legal_s, out.slowest_legal_where = took, f"{label}, {_kinds(legal)}"
            if len(legal) > out.largest:
                out.largest, out.largest_where = len(legal), f"{label}, {_kinds(legal)}"
            if s == seat:
                chosen = legal
        command = policies[seat](game, state, seat, chosen, rng)
        started = clock()
        new = game.decide(state, seat, command, rng_for(seed, len(events) + 1))
        took = clock() - started
        if timed and took > out.slowest_decide_s:
            n = len(events) + 1
            took = min(took, _least(lambda: game.decide(state, seat, command, rng_for(seed, n))))  # noqa: B023
        if took > out.slowest_decide_s:
            out.slowest_decide_s, out.slowest_decide_where = took, f"{label}, {type(command).__name__}"
        state = game.fold(new, state)
        events.extend(new)
    return out


def _least(call: Callable[[], object], times: int = 3) -> float:
    """The shortest of a few runs of ``call``: a record is measured again, so that a pause of the machine
    (the collector, another process) is not taken for the rules' time."""
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def _kinds(legal: Sequence[Any]) -> str:
    counts: dict[str, int] = {}
    for command in legal:
        counts[type(command).__name__] = counts.get(type(command).__name__, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def option_sets(key: str) -> list[Options]:
    """Every option set worth exploring: El Capitán's eight expansion subsets, the others' examples."""
    if key == "elcapitan":
        from itertools import combinations

        from domain.elcapitan import data

        return [{"expansions": list(c)} for r in range(4) for c in combinations(data.EXPANSIONS, r)]
    return list(GAMES[key].option_examples)
