"""The order of play: set-up, then whatever happens by itself until a player must act.

``advance`` emits the automatic events of the rulebook (dice, the neutral player's moves, card draws and
reveals, supply and demand, the end of an epoch, the final scoring) and the ``TurnBegan`` that names
who acts next, so there is never a state without an actor before the game ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from domain.eic import data
from domain.eic import events as ev
from domain.eic.evolve import evolve
from domain.eic.rules import envoys, epoch_end, loading, navigation, selling
from domain.eic.rules.common import humans, next_in_order
from domain.eic.state import RULES, State
from domain.engine import Rng, RuleViolation, check_known_options, check_seat_count, rng_for

OPTIONS = ("pledging",)


def setup(seats: int, options: Mapping[str, Any], seed: bytes, rules: int = RULES) -> list[ev.EicEvent]:
    """Random initiative (the neutral takes the third slot with 2 players), then epoch 1 begins.

    ``rules`` is the rules version (``verify`` sets an old game up again under its own).
    """
    if not 1 <= rules <= RULES:
        raise RuleViolation("eic.unknown_rules", f"rules versions are 1 to {RULES}, not {rules}")
    check_seat_count("eic", seats, data.MIN_PLAYERS, data.MAX_PLAYERS)
    check_known_options("eic", options, OPTIONS)
    if not isinstance(options.get("pledging", False), bool):
        raise RuleViolation("eic.bad_option", "the option pledging is true or false")
    rng = rng_for(seed, 1)
    order = rng.shuffled(list(range(seats)))
    if seats == 2:
        order.append(2)  # rulebook, 2 players: the neutral's marker on the third initiative position
    first: list[ev.EicEvent] = [
        ev.GameSetUp(
            seats=seats,
            options={"pledging": bool(options.get("pledging", False))},
            initiative=tuple(order),
            rules=rules,
        )
    ]
    state = evolve(None, first[0])
    return first + advance(state, rng)


def advance(state: State, rng: Rng) -> list[ev.EicEvent]:
    """Automatic events until somebody must act or the game is over."""
    return advance_folded(state, rng)[0]


def advance_folded(state: State, rng: Rng) -> tuple[list[ev.EicEvent], State]:
    """``advance``, with the state its events lead to."""
    out: list[ev.EicEvent] = []
    while state.actor < 0 and state.phase != "over":
        for event in _STEP[state.phase](state, rng):
            state = evolve(state, event)
            out.append(event)
    return out, state


def _begin_epoch(state: State, rng: Rng) -> list[ev.EicEvent]:
    if state.phase == "epoch_over" and state.epoch == data.EPOCHS:
        return [epoch_end.final_scoring(state)]
    fe = tuple(rng.die() for _ in range(4))
    eu = tuple(rng.die() for _ in range(4))
    return [
        ev.EpochBegan(
            epoch=state.epoch + 1, fe_dice=(fe[0], fe[1], fe[2], fe[3]), eu_dice=(eu[0], eu[1], eu[2], eu[3])
        )
    ]


def _phase_a(state: State, rng: Rng) -> list[ev.EicEvent]:
    wants = {p for p in humans(state) if envoys.unplaced(state.players[p])}
    if state.neutral >= 0 and not state.neutral_done:
        wants.add(state.neutral)
    p = next_in_order(state, state.initiative, wants)
    if p < 0:
        return [*_expertise(state), ev.PhaseBegan(phase="B")]
    if p == state.neutral:
        return [envoys.neutral_envoys(state, rng)]
    return [ev.TurnBegan(player=p, step="envoy")]


def _expertise(state: State) -> list[ev.EicEvent]:
    """Start of B: Expertise envoys take slots 1, 2, … in placement order; the others move down."""
    experts = [p for p in state.occupants[data.SPACE_IDS.index("CAP_EXPERTISE")] if p != state.neutral]
    if not experts:
        return []
    rest = [p for p in state.initiative if p not in experts]
    return [ev.InitiativeChanged(initiative=(*experts, *rest))]


def _phase_b(state: State, rng: Rng) -> list[ev.EicEvent]:
    order = humans(state)
    if state.passes >= len(order):
        return [ev.PhaseBegan(phase="C")]
    return [ev.TurnBegan(player=next_in_order(state, order, set(order)), step="stock")]


def _phase_c(state: State, rng: Rng) -> list[ev.EicEvent]:
    if not state.cards_drawn:
        for market, step in (("europe", "influence_eu"), ("far_east", "influence_fe")):
            chosen = state.eu_card if market == "europe" else state.fe_card
            p = navigation.chooser(state, market)
            if p >= 0 and chosen is None:
                return [ev.TurnBegan(player=p, step=step)]
        return [navigation.draw_cards(state, rng)]
    wants = {p for p in range(state.companies) if navigation.in_harbour(state, p)}
    p = next_in_order(state, state.initiative, wants)
    if p < 0:
        return [ev.PhaseBegan(phase="D")]
    if p == state.neutral:
        return [navigation.neutral_sends(state, rng)]
    return [ev.TurnBegan(player=p, step="navigate")]


def _phase_d(state: State, rng: Rng) -> list[ev.EicEvent]:
    if not state.fe_revealed:
        return [loading.far_east_supply(state)]
    if not state.queue:
        if state.zone < 3:
            return [loading.reveal(state, state.zone + 1)]
        return [ev.PhaseBegan(phase="E")]
    owner = loading.head(state)[0]
    if owner == state.neutral:
        return [loading.neutral_loads(state)]
    return [ev.TurnBegan(player=owner, step="load")]


def _phase_e(state: State, rng: Rng) -> list[ev.EicEvent]:
    if not state.eu_revealed:
        return [selling.europe_demand(state)]
    wants = {p for p in range(state.companies) if sum(state.players[p].warehouse)}
    p = next_in_order(state, state.initiative, wants, cyclic=False)
    if p < 0:
        return [ev.PhaseBegan(phase="U")]
    if p == state.neutral:
        return [selling.neutral_sells_warehouse(state)]
    return [ev.TurnBegan(player=p, step="warehouse")]


def _phase_u(state: State, rng: Rng) -> list[ev.EicEvent]:
    at = selling.unload_speed(state)
    if at == 0:
        return [ev.PhaseBegan(phase="F")]
    wants = {p for p in range(state.companies) if selling.ships_to_unload(state, p, at)}
    if at != state.unload_speed:
        state = replace(state, cursor=-1)  # a new speed starts again at the top of the initiative
    p = next_in_order(state, state.initiative, wants)
    if p == state.neutral:
        return [selling.neutral_unloads(state)]
    return [ev.TurnBegan(player=p, step="unload")]


def _phase_f(state: State, rng: Rng) -> list[ev.EicEvent]:
    return epoch_end.end_epoch(state)


_STEP: dict[str, Callable[[State, Rng], list[ev.EicEvent]]] = {
    "setup": _begin_epoch,
    "epoch_over": _begin_epoch,
    "A": _phase_a,
    "B": _phase_b,
    "C": _phase_c,
    "D": _phase_d,
    "E": _phase_e,
    "U": _phase_u,
    "F": _phase_f,
}
