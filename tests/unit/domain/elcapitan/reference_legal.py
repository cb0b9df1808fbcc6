"""``legal_commands`` as it was written before issue 45 made it cheaper: the reference it must equal.

Every step through its validator, with no filter in front (``rules/steps.turn_steps``,
``rules/building.action_commands`` at commit 2bf292e), and the pass of rules 3 searched without the
``_might_act`` short cut. Test code only: the engine never imports it.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.elcapitan import commands as cmd
from domain.elcapitan import data
from domain.elcapitan.rules import building, pirate, sailing, steps
from domain.elcapitan.rules.board import DESTINATION, arrival_space, card_cost
from domain.elcapitan.state import EMPTY, State


def action_commands(state: State, seat: int) -> list[Any]:
    p = state.players[seat]
    if state.stage != "turn" or seat != state.current or state.turn.acted or p.harbour == EMPTY:
        return []
    if p.ship in ("", "bank"):
        return []
    city = state.cities[state.city_index(p.ship)]
    out: list[Any] = []
    for neutral in (False, True) if state.seats == 2 else (False,):
        for site in building.next_sites(city):
            if building.accepts(building.check_build, state, seat, site, neutral):
                out.append(cmd.BuildWarehouse(site=site, neutral=neutral))
            if building.accepts(building.check_reopen, state, seat, site, neutral):
                out.append(cmd.ReopenWarehouse(site=site, neutral=neutral))
    if building.accepts(building.check_fortress, state, seat):
        out.append(cmd.BuildFortress())
    return out


def turn_steps(state: State, seat: int) -> list[Any]:
    out: list[Any] = []
    p = state.players[seat]
    for card in (*state.destinations.display, *state.interconnections.display):
        if p.money >= card_cost(card):
            out.append(cmd.BuyCard(card=card))
    if not state.turn.acted:
        for card in dict.fromkeys(p.hand):
            out += [cmd.Sail(card=card, to=to) for to in sailing.sail_targets(state, seat, card)]
        out += action_commands(state, seat)
        owed = pirate.pirate_owed(state)
        for kind in data.LOANS:
            if building.accepts(building.check_loan, state, seat, kind.amount, owed):
                out.append(cmd.TakeLoan(amount=kind.amount))
    return out


def _reach(state: State, seat: int) -> bool:
    p = state.players[seat]
    for city in steps._reachable(state, seat):
        space = arrival_space(state, seat, city)
        if space == EMPTY:
            continue
        players = (*state.players[:seat], replace(p, ship=city, harbour=space), *state.players[seat + 1 :])
        if action_commands(replace(state, players=players), seat):
            return True
    return False


def _may_pass(state: State, seat: int) -> bool:
    if state.turn.acted or pirate.pirate_owed(state):
        return False
    found = turn_steps(state, seat)
    if state.rules == 1:
        return not found
    entering = not state.players[seat].ship
    if any(not isinstance(c, cmd.BuyCard) or (entering and c.card in DESTINATION) for c in found):
        if state.rules == 2 or entering:
            return False
        if any(not isinstance(c, cmd.BuyCard | cmd.Sail) for c in found):
            return False
        return not _reach(state, seat)
    return True


def legal_commands(state: State, seat: int, to_act: frozenset[int]) -> list[Any]:
    if seat not in to_act or state.stage != "turn":
        return []
    others = turn_steps(state, seat) + pirate.pirate_commands(state, seat)
    if (state.turn.acted and not pirate.pirate_owed(state)) or _may_pass(state, seat):
        others.append(cmd.EndTurn())
    return others
