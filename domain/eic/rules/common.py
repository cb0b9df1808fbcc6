"""Shared checks of the rules: refusals with stable codes, whose action it is."""

from __future__ import annotations

from typing import NoReturn

from domain import engine
from domain.eic import data
from domain.eic.state import State


def refuse(code: str, message: str) -> NoReturn:
    """Raise the refusal ``eic.<code>`` (``engine.refuse``, shared by the three games)."""
    engine.refuse("eic", code, message)


def require(condition: bool, code: str, message: str) -> None:
    """Refuse unless ``condition`` holds."""
    if not condition:
        refuse(code, message)


def require_step(state: State, seat: int, step: str) -> None:
    """The seat must be the one acting, in ``step``."""
    require(state.actor == seat, "not_your_turn", "players act in initiative order (rulebook, Spielablauf)")
    require(state.step == step, "wrong_step", f"this needs the step {step!r}, not {state.step!r}")


def humans(state: State) -> tuple[int, ...]:
    """The seated players in initiative order (the 2-player game's neutral excluded)."""
    return tuple(p for p in state.initiative if p != state.neutral)


def may_sell_shares(state: State) -> bool:
    """Shares are sold at one's own action, never in phase B, and in epoch 5 only in phase A (rulebook, B)."""
    if state.phase == "B":
        return False
    return not (state.epoch == data.EPOCHS and state.phase != "A")


def next_in_order(state: State, order: tuple[int, ...], wants: set[int], cyclic: bool = True) -> int:
    """The first player of ``order`` after the cursor (cyclically) who is in ``wants``, or -1."""
    if not wants:
        return -1
    last = state.initiative[state.cursor] if state.cursor >= 0 else None
    start = order.index(last) + 1 if last in order else 0
    candidates = order[start:] + (order[:start] if cyclic else ())
    for p in candidates:
        if p in wants:
            return p
    return -1
