"""A person at the board: plays whatever decision the page offers, on the board where it can.

Each decision is taken by clicking a highlighted target on the board when there is one; the word
buttons and the number control are used only where the decision has nothing on the board (a pass,
a bid amount, a confirm). Loans are taken only when nothing else is offered (a game of pledges and
repayments could go round).

One step costs a few round trips to the browser: the test polls the page (``waiting.wait_until``; the
page's Content-Security-Policy refuses ``wait_for_function``'s eval) until it offers something to do and
answers with the point to click, then the mouse clicks there. The page offers nothing while a sent move is on its way (the decision is busy
and shows no targets), so no step is taken twice; no fixed sleeps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tests.browser.waiting import wait_until

MINOR = ("loan:", "repay:")

# Runs in the page on every animation frame until it returns something truthy: the game's end (or the
# caller's `until`), or the point of one offered place or button that a click there really hits.
_NEXT_STEP = """
([r, until, minor]) => {
  if (document.body.dataset.status === 'finished') {
    return document.getElementById('final-table') ? {done: true} : null;
  }
  if (until && new Function(`return (${until});`)()) return {done: true};
  const visible = (el) => el.getClientRects().length > 0;
  const plain = (el) => !minor.some((m) => (el.getAttribute('data-key') || '').startsWith(m));
  const board = [...document.querySelectorAll('#board .target.legal')];
  const controls = [...document.querySelectorAll('#confirm:enabled, #decide .num-go:enabled')].filter(visible);
  const words = [...document.querySelectorAll('#decide button.choice:enabled')].filter(visible);
  const groups = [board, controls, words.filter(plain), words];
  const offered = groups.find((g) => g.length);
  if (!offered) return null;
  const start = Math.floor(r * offered.length);
  for (let k = 0; k < offered.length; k++) {
    const el = offered[(start + k) % offered.length];
    el.scrollIntoView({block: 'center', inline: 'center'});
    const box = el.getBoundingClientRect();
    // the centre first, then a grid: a city's own places lie inside it and take their own clicks
    for (const [fx, fy] of [[0.5, 0.5], [0.5, 0.2], [0.2, 0.5], [0.8, 0.5], [0.5, 0.85], [0.15, 0.15], [0.85, 0.15], [0.15, 0.85], [0.85, 0.85]]) {
      const x = box.left + box.width * fx, y = box.top + box.height * fy;
      const hit = document.elementFromPoint(x, y);
      const owner = hit && (hit.closest('[data-target]') || hit.closest('button'));
      if (owner === el) {
        return {x, y, board: board.length > 0, key: el.getAttribute('data-target') || el.getAttribute('data-key') || el.id};
      }
    }
  }
  return null;
}
"""


@dataclass
class Clicks:
    board: int = 0
    controls: int = 0
    kinds: set[str] = field(default_factory=set)


def finished(page: Any) -> bool:
    return bool(page.evaluate("document.body.dataset.status === 'finished'"))


def next_step(
    page: Any, rng: random.Random, until: str = "false", timeout_ms: int = 120_000
) -> dict[str, Any]:
    """Wait until the page offers a step (or the game is over, or ``until`` holds); where to click."""
    # polled with page.evaluate: wait_for_function's predicate runs under the page's CSP (no eval)
    step: dict[str, Any] = wait_until(
        page, f"({_NEXT_STEP})", [rng.random(), until, list(MINOR)], timeout_ms=timeout_ms
    )
    return step


def take_one_step(page: Any, rng: random.Random, clicks: Clicks) -> bool:
    """One click of the person's decision if the page offers one now; False when there is nothing to do."""
    step = page.evaluate(f"({_NEXT_STEP})", [rng.random(), "false", list(MINOR)])
    if not step or step.get("done"):
        return False
    _click(page, step, clicks)
    return True


def _click(page: Any, step: dict[str, Any], clicks: Clicks) -> None:
    page.mouse.click(step["x"], step["y"])
    if step["board"]:
        clicks.board += 1
        clicks.kinds.add(str(step["key"]).split(":")[0])
    else:
        clicks.controls += 1


def play_to_the_end(page: Any, seed: int, max_clicks: int = 3000, until: str = "false") -> Clicks:
    """Click until the game is over and its final table shown, or until the JavaScript condition
    ``until`` holds (the bots move in between)."""
    rng = random.Random(seed)
    clicks = Clicks()
    while True:
        step = next_step(page, rng, until)
        if step.get("done"):
            return clicks
        if clicks.board + clicks.controls >= max_clicks:
            raise AssertionError(f"no end after {max_clicks} clicks")
        _click(page, step, clicks)
