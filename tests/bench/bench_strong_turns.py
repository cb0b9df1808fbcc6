"""Strong turns in the service (issue 45): each search turn's own record of its time against its deadline,
its iterations and its wait in the queue, over real processes.

An embedded Redis, the gateway, one fold worker and two forking rq workers with their bot runners (the
stack of ``tests/integration/bots/test_strong_in_the_service.py``); four East India Companies games at 2 seats,
the level under test in seat 0 against ``greedy``; until ``HM_TURNS_WANTED`` (default 30) search turns
have finished. Environment: ``HM_TURNS_LEVELS`` (default ``strong-0.2,strong``), ``HM_TURNS_HOG`` (``1``: a
process spinning on a core beside them, as the test's load).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import httpx

from services.redis_launcher import EmbeddedRedis
from tests.integration.bots.test_strong_in_the_service import bot_stack, cpu_load, search_turns


def turns_of(level: str, wanted: int, hog: bool) -> list[Any]:
    """The finished search turns' jobs of a run at ``level``."""
    with EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-turns-"))) as server:
        load = cpu_load() if hog else nullcontext()
        with bot_stack(server.url) as (gateway, services), httpx.Client(base_url=gateway.base) as api, load:
            for n in range(4):
                body = {"game": "eic", "seats": 2, "bots": {"0": level, "1": "greedy"}, "game_id": f"t-{n}"}
                api.post("/api/games", json=body).raise_for_status()
            while len(search_turns(services)) < wanted:
                time.sleep(0.5)
            return search_turns(services)


def line(level: str, hog: bool, turns: list[Any]) -> str:
    records = [job.meta["bot_turn"] for job in turns]
    elapsed = [r["elapsed_s"] for r in records]
    iterations = [r["iterations"][0] for r in records if r["iterations"]]
    waits = [(job.started_at - job.enqueued_at).total_seconds() for job in turns]
    deadline = records[0]["deadline_s"]
    return (
        f"{level} (deadline {deadline:.2f} s){' + spinning process' if hog else ''}: {len(turns)} turns on "
        f"{len({job.worker_name for job in turns})} workers; elapsed min/median/max {min(elapsed):.2f}/"
        f"{statistics.median(elapsed):.2f}/{max(elapsed):.2f} s, {sum(e > deadline for e in elapsed)} over; "
        f"iterations median/max {statistics.median(iterations):.0f}/{max(iterations)}; queue wait median/max "
        f"{statistics.median(waits):.1f}/{max(waits):.1f} s; greedy fallbacks "
        f"{sum(r['greedy_instead'] for r in records)}"
        + "".join(
            f"\n  over: loaded at {r['loaded_s']:.2f}, chosen at {r['chosen_s']:.2f}, sent by {r['elapsed_s']:.2f} s"
            for r in records
            if r["elapsed_s"] > deadline
        )
    )


def main() -> None:
    wanted = int(os.environ.get("HM_TURNS_WANTED", "30"))
    hog = os.environ.get("HM_TURNS_HOG", "1") == "1"
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for level in os.environ.get("HM_TURNS_LEVELS", "strong-0.2,strong").split(","):
        print(line(level, hog, turns_of(level, wanted, hog)), flush=True)
