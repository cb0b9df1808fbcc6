"""A person at the board: plays whatever decision the page offers, on the board where it can.

Each decision is taken by clicking a highlighted target on the board when there is one; the word
buttons and the number control are used only where the decision has nothing on the board (a pass,
a bid amount, a confirm). Loans are taken only when nothing else is offered (a game of pledges and
repayments could go round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

MINOR = ("loan:", "repay:")


@dataclass
class Clicks:
    board: int = 0
    controls: int = 0
    kinds: set[str] = field(default_factory=set)


def finished(page: Any) -> bool:
    return bool(page.evaluate("document.body.dataset.status === 'finished'"))


def take_one_step(page: Any, rng: random.Random, clicks: Clicks) -> bool:
    """One click of the person's decision if one is offered now; False when there is nothing to do."""
    targets = page.locator("#board .target.legal")
    count = targets.count()
    if count:
        chosen = targets.nth(rng.randrange(count))
        clicks.kinds.add((chosen.get_attribute("data-target") or "").split(":")[0])
        chosen.click()
        clicks.board += 1
        return True
    for selector in ("#confirm:enabled", "#decide .num-go:enabled"):
        button = page.locator(selector)
        if button.count():
            button.first.click()
            clicks.controls += 1
            return True
    every = page.locator("#decide button.choice:enabled:visible").all()
    choices = [b for b in every if not (b.get_attribute("data-key") or "").startswith(MINOR)] or every
    if choices:
        rng.choice(choices).click()
        clicks.controls += 1
        return True
    return False


def play_to_the_end(page: Any, seed: int, max_clicks: int = 2000, until: str = "false") -> Clicks:
    """Click until the game is over, or until the JavaScript condition ``until`` holds (the bots move in
    between)."""
    rng = random.Random(seed)
    clicks = Clicks()
    while not finished(page) and not page.evaluate(until):
        if clicks.board + clicks.controls > max_clicks:
            raise AssertionError(f"no end after {max_clicks} clicks")
        before = page.evaluate("document.body.dataset.seq")
        if not take_one_step(page, rng, clicks):
            page.wait_for_function(
                "document.body.dataset.status === 'finished' || document.querySelector("
                "'#board .target.legal, #decide button:enabled') !== null",
                timeout=60_000,
            )
            continue
        # a move that was sent: wait for its event (or for the next step of the same decision)
        page.wait_for_function(
            f"document.body.dataset.seq !== '{before}' || document.querySelector('#undo') !== null",
            timeout=60_000,
        )
    return clicks
