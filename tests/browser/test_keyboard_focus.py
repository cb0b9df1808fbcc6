"""Keyboard play keeps the focus on the decision (issue 44.7): in each game a player moves with Tab and
Enter alone; after every step of a move of several parts, and after a move sent, the focus is on the
decision (a control of the action bar, a place on the board, or the bar itself) with a visible ring,
never dropped on the page."""

from __future__ import annotations

from typing import Any

import httpx

from tests.browser.test_at_the_table import CHANGED, KINDS, STATE, Table
from tests.browser.waiting import wait_until
from tests.support.harness import ServerThread

# What Enter may take: a place offered on the board, or a button of the action bar (not Undo).
ON_A_CHOICE = """() => { const a = document.activeElement;
  return !!(a && (a.closest('#board .target.legal') || (a.closest('#decide') && a.matches('button:enabled:not(#undo)')))); }"""

SETTLED = (
    """() => !!document.querySelector('#decide .waiting, #decide button:enabled, #board .target.legal')"""
)

FOCUS = """() => { const a = document.activeElement;
  return {tag: a ? a.tagName : null, id: a ? a.id : null, onDecision: !!(a && a !== document.body && (a.closest('#decide') || a.closest('#board'))),
          ring: !!(a && a.matches(':focus-visible')), midMove: !!document.querySelector('#decide .chosen-steps')}; }"""


def tab_to_a_choice(page: Any) -> None:
    for _ in range(150):
        if page.evaluate(ON_A_CHOICE):
            return
        page.keyboard.press("Tab")
    raise AssertionError("no choice reached with Tab")


def test_focus_stays_on_the_decision_through_each_step(
    browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    mid_move_steps = 0
    for kind in KINDS:
        table = Table(api, kind, seed=23)
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        try:
            page = context.new_page()
            seat = table.open_with_places(page, live_stack.base, moves=4)
            for _ in range(10):
                if seat not in table.to_act():
                    seq = table.move()
                    wait_until(page, f"Number(document.body.dataset.seq) >= {seq}")
                    wait_until(page, SETTLED)
                    continue
                if not page.evaluate(ON_A_CHOICE):
                    tab_to_a_choice(page)
                before = page.evaluate(STATE)
                page.keyboard.press("Enter")
                wait_until(page, CHANGED, before)
                wait_until(page, SETTLED)
                focus = page.evaluate(FOCUS)
                assert focus["onDecision"] and focus["ring"], (kind, focus)
                mid_move_steps += focus["midMove"]
        finally:
            context.close()
    assert mid_move_steps > 0  # at least one step inside a move of several parts was taken by keyboard
