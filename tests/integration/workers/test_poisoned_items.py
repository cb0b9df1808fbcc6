"""Items that used to crash or stall a worker, with real fold and rq worker processes (issues 31.3, 33.1,
33.4): games stored with ids from before ids were checked (``.``, ``:``, ``../evil``) end and are archived
inside the archive folder while the fold worker lives on; a tournament id with hyphens has its round closed
by the trigger, with nothing reconciling; a tournament stored with points missing for its final table is
set aside as failed by its round job, which is not retried; a round job left from a tournament no longer
stored ends without writing anything under its id."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rq import Queue

from domain import GAMES
from domain.tournament import Entrant, PointsByPlace, TournamentSettings
from domain.tournament import rules as tournament_rules
from events.tournament_store import TournamentStore, tournament_key
from services import tournament_service as service
from services.archive import archived
from services.bootstrap import Services
from tests.support.pipeline import TEST_PLUGINS, eventually, services_for, stop_process, worker_process
from workers.jobs.archive_trigger import archive_job_id
from workers.jobs.tournament import TOURNAMENT_QUEUE, enqueue_round, round_job_id

ROLL = b'{"type": "Roll"}'


def _rq_worker(url: str, partitions: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_PARTITIONS": str(partitions),
           "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS, "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker", "--no-fork"], env=env)


@pytest.fixture
def workers(
    redis_url: str, redis_client, tmp_path: Path
) -> Iterator[tuple[Services, Path, subprocess.Popen[bytes]]]:
    services = services_for(redis_url)
    services.bus.ensure_groups()
    folder = tmp_path / "archive"
    fold = worker_process(redis_url, services.bus.partitions, {"HARBORMASTER_ARCHIVE": str(folder)})
    rq = _rq_worker(redis_url, services.bus.partitions)
    try:
        yield services, folder, fold
    finally:
        stop_process(fold)
        rq.terminate()
        rq.wait(timeout=20)


def _roll_to_the_end(services: Services, game_id: str, seats: int) -> None:
    """A race of ``seats`` to 6: each seat rolls in turn until the game ends (refused rolls change nothing)."""
    for _ in range(8):
        for seat in range(seats):
            services.bus.submit(game_id, seat, ROLL)


def test_games_with_ids_from_before_the_check_end_and_archive_inside_the_folder(workers) -> None:
    services, folder, fold = workers
    legacy = ["g.1", "x:y", "../evil", "ok-game"]
    for game_id in legacy:  # as a version without the id check stored them
        services.store.create("race", game_id, 1, {"goal": 6}, secrets.token_bytes(32))
        _roll_to_the_end(services, game_id, 1)
    eventually(lambda: len(archived(services.redis, legacy)) == len(legacy), timeout=90, message="archived")
    assert fold.poll() is None  # rq took every archive job id: the fold worker never crashed
    files = {Path(entry["file"]) for entry in archived(services.redis, legacy).values()}
    assert {path.parent for path in files} == {folder}
    assert folder / "ok-game.jsonl.gz" in files
    assert archive_job_id("x:y") != archive_job_id("x.y")


def test_a_hyphenated_tournament_id_has_its_round_closed_by_the_trigger(workers) -> None:
    services, _, _ = workers
    spec = service.TournamentSpec(game="race", id="harbour-cup-2026", rounds=1, table_size=2, options={"goal": 6}, points={2: [6, 1], 1: [3]},
                                  entrants=[Entrant(name="ann"), Entrant(name="bob")])  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, services.settings.redis_url or "", tid)
    (game_id,) = service.load(services, tid).rounds[0].games
    assert game_id == "harbour-cup-2026-r1-t1"
    _roll_to_the_end(services, game_id, 2)
    # Nothing reconciles here: only the fold worker's trigger and the round job can finish it.
    eventually(lambda: service.load(services, tid).status == "finished", timeout=60, message="round closed")


def test_a_round_job_that_fails_on_a_stored_tournament_sets_it_aside(workers, redis_client) -> None:
    """Issue 33.1: a final table of 3 with no points for 3 raised ``ValueError`` on every attempt."""
    services, _, _ = workers
    game = GAMES["manila"]
    points = PointsByPlace(by_size={"5": (10, 7, 5, 3, 1), "4": (10, 6, 3, 1)})
    settings = TournamentSettings(game="manila", format="elimination", table_size=5, points=points,
                        tie_breaks=("progress", "points"))  # fmt: skip
    entrants = [Entrant(name=f"b{n}", bot="random") for n in range(15)]
    created = tournament_rules.create("cup", settings, entrants, min_seats=game.min_seats,
                                      max_seats=game.max_seats, pairing_seed=b"seed")  # fmt: skip
    TournamentStore(services.redis).create(created[0])  # type: ignore[arg-type]  # as before the check
    service.start(services, services.settings.redis_url or "", "cup")
    tournaments = TournamentStore(services.redis)
    eventually(lambda: tournaments.failure("cup") is not None, timeout=240, message="set aside")
    assert tournaments.failure("cup") == "ValueError: no points configured for tables of 3"
    assert service.describe(services, "cup", full=False)["status"] == "failed"
    assert redis_client.zcard("rq:failed:hm-tournaments") == 0  # marked, not failed over and over


def test_a_round_job_of_a_tournament_no_longer_stored_sets_nothing_aside(workers, redis_client) -> None:
    """Its reason, written under an id nobody created, would set aside the tournament created under it later
    (``TournamentStore.mark_failed`` refuses it); the job ends, it does not fail."""
    services, _, _ = workers
    url = services.settings.redis_url or ""
    enqueue_round(
        Queue(TOURNAMENT_QUEUE, connection=redis_client), url, "gone", 1, services.bus.partitions, ()
    )
    job = f"rq:job:{round_job_id('gone', 1)}"
    eventually(lambda: redis_client.hget(job, "status") == b"finished", timeout=60, message="the job ended")
    assert redis_client.exists(tournament_key("gone", "meta")) == 0
    assert redis_client.zcard("rq:failed:hm-tournaments") == 0
