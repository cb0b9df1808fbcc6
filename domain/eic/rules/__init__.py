"""The rules of East India Companies (rulebook, "Spielablauf"): one module per phase.

``decide`` validates a command, returns its events and every automatic consequence (``flow.advance``);
``legal_commands`` lists exactly what ``decide`` accepts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.eic import commands as cmd
from domain.eic import events as ev
from domain.eic.evolve import evolve
from domain.eic.rules import envoys, exchange, loading, navigation, selling
from domain.eic.rules.common import refuse
from domain.eic.rules.flow import advance_folded, setup
from domain.eic.state import State
from domain.engine import Command, Outcome, Rng


def _decider(command: Command) -> Callable[[State, int, Any], list[ev.EicEvent]] | None:
    """The rule deciding ``command``, or None for a command not of this game (``match``, as in every game)."""
    match command:
        case cmd.PlaceEnvoy():
            return envoys.decide_place_envoy
        case cmd.RecallEnvoy():
            return envoys.decide_recall_envoy
        case cmd.BuyShare():
            return exchange.decide_buy_share
        case cmd.RedeemStartShare():
            return exchange.decide_redeem_start_share
        case cmd.Pass():
            return exchange.decide_pass
        case cmd.SellShares():
            return exchange.decide_sell_shares
        case cmd.PledgeStartShare():
            return exchange.decide_pledge_start_share
        case cmd.ChooseMarketCard():
            return navigation.decide_choose_market_card
        case cmd.SendShip():
            return navigation.decide_send_ship
        case cmd.LoadShip():
            return loading.decide_load_ship
        case cmd.LeaveShipInFarEast():
            return loading.decide_leave_ship
        case cmd.SellFromWarehouse():
            return selling.decide_sell_from_warehouse
        case cmd.UnloadShip():
            return selling.decide_unload_ship
    return None


_STEP_COMMANDS: dict[str, Callable[[State, int], list[Any]]] = {
    "envoy": lambda s, p: envoys.placements(s, p) or envoys.recalls(s, p),
    "stock": exchange.buys,
    "influence_eu": navigation.card_choices,
    "influence_fe": navigation.card_choices,
    "navigate": navigation.sendings,
    "load": loading.loads,
    "warehouse": selling.warehouse_sales,
    "unload": selling.unloadings,
}


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[ev.EicEvent]:
    """Validate ``command`` for ``seat`` and return its events plus all automatic consequences.

    A pledge may come from any seat at any time (it never changes whose action it is); every other
    command only from the seat whose action it is.
    """
    return decide_and_fold(state, seat, command, rng)[0]


def decide_and_fold(state: State, seat: int, command: Command, rng: Rng) -> tuple[list[ev.EicEvent], State]:
    """``decide``, with the state its events lead to: deciding folds them all anyway (to find who acts
    next), so a search need not fold them a second time (``Game.decide_and_fold``, issue 45)."""
    if state.phase == "over":
        refuse("game_over", "the game has ended; final scoring is done")
    if not 0 <= seat < state.seats:
        refuse("no_such_seat", f"seats are 0 to {state.seats - 1}")
    if state.actor != seat and not isinstance(command, exchange.OUT_OF_TURN):
        refuse("not_your_turn", "players act in initiative order (rulebook, Spielablauf)")
    decider = _decider(command)
    if decider is None:
        refuse("unknown_command", f"{type(command).__name__} is not a command of this game")
    events = decider(state, seat, command)
    for event in events:
        state = evolve(state, event)
    automatic, state = advance_folded(state, rng)
    return events + automatic, state


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``decide`` accepts from ``seat`` now.

    Out of one's action only pledging a start share ("jederzeit während des Spiels") is open.
    """
    if state.phase == "over" or not 0 <= seat < state.seats:
        return []
    if state.actor != seat:
        return exchange.pledges(state, seat)
    main: list[Command] = _STEP_COMMANDS[state.step](state, seat)
    return main + exchange.free_actions(state, seat)


def to_act(state: State) -> frozenset[int]:
    """The seat that must act, or nobody once the game is over."""
    return frozenset() if state.phase == "over" or state.actor < 0 else frozenset({state.actor})


def outcome(state: State) -> Outcome | None:
    """The final ranking once the last epoch is scored."""
    if state.phase != "over":
        return None
    return Outcome(
        ranking=state.ranking, scores=state.scores, winners=(state.ranking[0],), tie_break=state.tie_break
    )


__all__ = ["decide", "decide_and_fold", "legal_commands", "outcome", "setup", "to_act"]
