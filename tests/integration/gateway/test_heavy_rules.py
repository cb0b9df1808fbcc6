"""No game can stall the gateway (issue 32): while the heaviest ``/legal`` a hoarding El Capitán player can
reach is asked for again and again, ``/healthz`` and the moves of another game still answer promptly.

Rule computations are bounded (``MAX_LEGAL_COMMANDS`` in ``domain/engine.py``; the slowest list measured
takes ~2-3 ms, ``tests/bench/bench_rules_bound.py``), so the gateway computes them on its loop: a bound
alone keeps every other request's wait to a few milliseconds (``docs/history/decisions.md``).
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from typing import Any

import httpx

from tests.support.client import bearer, create, post_command
from tests.support.harness import ServerThread

ALL_EXPANSIONS = {"expansions": ["porto", "lisboa", "canarias"]}
PROMPT_MS = 100.0


def _hoarders_choice(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Buy every card, take every loan, pay the pirate with as many cards as offered, build nothing."""
    for kind in ("BuyCard", "TakeLoan", "ExtendLoan"):
        found = [c for c in legal if c["type"] == kind]
        if found:
            return rng.choice(found)
    pirate = [c for c in legal if c["type"] == "MovePirate" and c.get("cards")]
    if pirate and rng.random() < 0.5:
        return max(pirate, key=lambda c: len(c["cards"]))
    if {"type": "EndTurn"} in legal:
        return {"type": "EndTurn"}
    return rng.choice([c for c in legal if c["type"] != "MovePirate"] or legal)


def _hoard(api: httpx.Client, game_id: str, tokens: dict[int, str], moves: int) -> tuple[int, int]:
    """Play the hoarders for ``moves`` moves; returns the seat whose list was longest and its length."""
    rng, best = random.Random(32), (0, 0)
    for _ in range(moves):
        state = api.get(f"/api/games/{game_id}").json()
        if state["status"] == "finished":
            break
        seat = state["to_act"][0]
        legal = api.get(f"/api/games/{game_id}/legal", headers=bearer(tokens[seat])).json()
        best = max(best, (len(legal), seat))
        applied = post_command(api, game_id, tokens[seat], {"command": _hoarders_choice(legal, rng)})
        assert applied.status_code == 200, applied.text
    return best[1], best[0]


def _ask_legal_until(base: str, url: str, token: str, stop: threading.Event, asked: list[int]) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        while not stop.is_set():
            client.get(url, headers=bearer(token)).raise_for_status()
            asked.append(1)


def _timed_ms(call: Any) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def test_the_heaviest_legal_list_holds_up_no_other_request(api: httpx.Client, stack: ServerThread) -> None:
    heavy = create(api, "elcapitan", 2, options=ALL_EXPANSIONS)
    tokens = {s["seat"]: s["token"] for s in heavy["seats"]}
    seat, length = _hoard(api, heavy["game_id"], tokens, moves=250)
    other = create(api, "manila", 3)
    others = {s["seat"]: s["token"] for s in other["seats"]}
    stop, asked = threading.Event(), list[int]()
    askers = [
        threading.Thread(target=_ask_legal_until,
                         args=(stack.base, f"/api/games/{heavy['game_id']}/legal", tokens[seat], stop, asked))
        for _ in range(3)
    ]  # fmt: skip
    for asker in askers:
        asker.start()
    health, moves, rng = [], [], random.Random(7)
    try:
        for _ in range(25):
            health.append(_timed_ms(lambda: api.get("/healthz").raise_for_status()))
            state = api.get(f"/api/games/{other['game_id']}").json()
            acting = state["to_act"][0]
            legal = api.get(f"/api/games/{other['game_id']}/legal", headers=bearer(others[acting])).json()
            command = {"command": rng.choice(legal)}
            moves.append(_timed_ms(lambda: post_command(api, other["game_id"], others[acting], command)))  # noqa: B023
    finally:
        stop.set()
        for asker in askers:
            asker.join()
    print(f"heaviest list {length} commands, asked {len(asked)} times; /healthz median "
          f"{statistics.median(health):.1f} ms max {max(health):.1f}; another game's moves median "
          f"{statistics.median(moves):.1f} ms max {max(moves):.1f}")  # fmt: skip
    assert length >= 40, "the hoarders did not reach a large list"
    assert len(asked) > 50
    assert statistics.median(health) < PROMPT_MS
    assert statistics.median(moves) < PROMPT_MS
