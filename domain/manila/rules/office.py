"""Phase 2: the harbour master buys a share, loads three goods and places the boats (S0 chapter 2)."""

from __future__ import annotations

import itertools

from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.common import forced_loans, refuse
from domain.manila.state import State, means, share_price

START_TRIPLES: tuple[tuple[int, ...], ...] = tuple(
    t for t in itertools.product(range(data.START_MAX + 1), repeat=3) if sum(t) == data.START_SUM
)
"""Every choice of three start fields 0–5 summing to 9 (S0 Abb. 5a/5b)."""


def decide_buy_share(state: State, seat: int, command: cmd.BuyShare) -> list[ev.ManilaEvent]:
    """One open share at max(5, black-market value), pledging shares if cash is short (S0 Abb. 3)."""
    if state.phase != "buy_share":
        refuse("wrong_phase", "only at the start of the harbour master's office")
    if command.good not in data.GOODS:
        refuse("unknown_good", f"no good called {command.good!r}")
    if state.supply[data.GOODS.index(command.good)] == 0:
        refuse("no_share_left", f"no open {command.good} share is left")
    price = share_price(state, command.good)
    if price > means(state.players[seat]):
        refuse("cannot_afford", f"a {command.good} share costs {price}")
    loans: list[ev.ManilaEvent] = [*forced_loans(state, seat, price)]
    return [*loans, ev.ShareBought(seat=seat, good=command.good, price=price)]


def decide_skip_share(state: State, seat: int, command: cmd.SkipShare) -> list[ev.ManilaEvent]:
    """Buying a share is optional ("darf")."""
    if state.phase != "buy_share":
        refuse("wrong_phase", "only at the start of the harbour master's office")
    return [ev.ShareSkipped(seat=seat)]


def decide_load_boats(state: State, seat: int, command: cmd.LoadBoats) -> list[ev.ManilaEvent]:
    """Load three of the four goods; start fields 0–5 that sum to exactly 9 (S0 chapter 2 b, c)."""
    if state.phase != "load":
        refuse("wrong_phase", "the boats are loaded after the share purchase")
    if command.left_ashore not in data.GOODS:
        refuse("unknown_good", f"no good called {command.left_ashore!r}")
    if tuple(command.starts) not in START_TRIPLES:
        refuse("bad_start", "each boat starts on a field 0–5 and the three fields sum to 9")
    goods = tuple(g for g in data.GOODS if g != command.left_ashore)
    return [ev.BoatsLoaded(goods=goods, starts=tuple(command.starts))]


def legal(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """Share purchases (then skipping), or every loading."""
    if state.phase == "buy_share":
        player = state.players[seat]
        out: list[cmd.ManilaCommand] = [
            cmd.BuyShare(good=g)
            for i, g in enumerate(data.GOODS)
            if state.supply[i] > 0 and share_price(state, g) <= means(player)
        ]
        return [*out, cmd.SkipShare()]
    return [cmd.LoadBoats(left_ashore=g, starts=t) for g in data.GOODS for t in START_TRIPLES]
