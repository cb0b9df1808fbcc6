"""Tournaments for tests: a whole one played by real worker processes (a fold worker and an rq worker that
archive every finished game, as ``harbormaster serve`` runs them); a round recorded straight through the
store; and a small race tournament of people whose games the test rolls out itself on a fold worker in its
own thread (the round-close tests)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from domain.tournament import Entrant, TableFinished
from domain.tournament import rules as tournament_rules
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.bootstrap import Services
from tests.support.pipeline import stop_process, worker_process
from workers.fold import FoldWorker
from workers.jobs.tournament import TournamentTrigger

ROLL = b'{"type":"Roll"}'
PEOPLE = ("ann", "bob", "cy", "di")


@contextlib.contextmanager
def tournament_workers(redis_url: str, partitions: int, archives: Path) -> Iterator[None]:
    """A fold worker and an rq worker (round and archive jobs) as processes, archiving to ``archives``."""
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_PARTITIONS": str(partitions),
           "HARBORMASTER_LOG_LEVEL": "warning", "HARBORMASTER_ARCHIVE": str(archives)}  # fmt: skip
    fold = worker_process(redis_url, partitions, {"HARBORMASTER_ARCHIVE": str(archives)})
    rq = subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker", "--no-fork"], env=env)
    try:
        yield
    finally:
        stop_process(fold)
        rq.terminate()
        rq.wait(timeout=20)


def play_to_the_end(services: Services, redis_url: str, tournament_id: str, timeout_s: float) -> None:
    """Start the tournament and reconcile it until it has finished (the workers must be running)."""
    service.start(services, redis_url, tournament_id)
    deadline = time.monotonic() + timeout_s
    while service.load(services, tournament_id).status != "finished":
        assert time.monotonic() < deadline, service.summary(service.load(services, tournament_id), full=False)
        service.reconcile(services, redis_url, tournament_id)
        time.sleep(0.5)


def record_round(store: TournamentStore, tournament_id: str, number: int) -> None:
    """Round ``number``'s tables finished straight through the store (each table's order its ranking, made-up
    scores and hash), as the round job would record them: no games played."""
    loaded = store.load(tournament_id)
    played = loaded.state.rounds[number - 1]
    finished = [TableFinished(round=number, table=i, ranking=t, scores=(3, 2, 1), winners=t[:1], final_hash="h")
                for i, t in enumerate(played.pairing.tables)]  # fmt: skip
    events = tournament_rules.record_tables(loaded.state, finished)
    assert store.append(loaded, f"close-r{number}", events).status == "ok"


def race_tournament(
    services: Services, redis_url: str, tid: str, rounds: int = 1, people: Sequence[str] = PEOPLE
) -> str:
    """A started tournament ``tid`` of dice races to 6 between ``people`` (no bots), at tables of two."""
    spec = service.TournamentSpec(game="race", entrants=[Entrant(name=n) for n in people], rounds=rounds,
                                  table_size=2, options={"goal": 6}, points={2: [6, 1], 1: [6]}, id=tid)  # fmt: skip
    service.create(services, spec)
    service.start(services, redis_url, tid)
    return tid


def fold_worker(services: Services, hook: TournamentTrigger | None = None) -> FoldWorker:
    """A fold worker the test runs in its own thread (``run(until_idle=True)``), with ``hook`` on each
    applied command (none: no outcome stored at a game's end, no round job queued)."""
    return FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=hook)


def round_hook(services: Services, rq: Any, redis_url: str) -> TournamentTrigger:
    """The fold worker's tournament hook, queueing round jobs on ``rq``."""
    return TournamentTrigger(services.redis, rq, redis_url, services.bus.partitions, ())


def roll_out(services: Services, worker: FoldWorker, game_ids: Sequence[str]) -> None:
    """Each race rolled by its seat to act until it has ended (a minute at most)."""
    deadline = time.monotonic() + 60
    for game_id in game_ids:
        while services.store.meta(game_id).status != "finished":
            assert time.monotonic() < deadline
            loaded = services.store.load(game_id)
            services.bus.submit(game_id, loaded.state.turn, ROLL, None)
            worker.run(until_idle=True)
