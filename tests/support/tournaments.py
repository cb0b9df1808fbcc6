"""A whole tournament played by real worker processes: a fold worker and an rq worker that archive every
finished game, as ``harbormaster serve`` runs them."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from domain.tournament import TableFinished
from domain.tournament import rules as tournament_rules
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.bootstrap import Services
from tests.support.pipeline import stop_process, worker_process


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
