"""``strong`` in the service (issue 45): its turns are rq jobs spread over the rq workers, each within its
deadline under load, and it is seated from the lobby (``POST /api/games``), ``harbormaster new --bots``,
tables and tournaments, with unknown bot names refused.

Real pieces: the gateway, a ``harbormaster worker`` fold worker and two ``harbormaster rq-worker``
processes (each with its bot runner thread, as ``serve`` starts them), on the session's Redis. The load is
a CPU-bound process beside them and several search games at once. "Within its deadline" is what each job
recorded of itself (``workers.jobs.bots.play_bot_turn``: its level, when it had loaded the game, decided
and sent its move), never a clock read by the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.registry import FinishedJobRegistry
from structlog.testing import capture_logs

from domain.clock import default_move
from events import codec
from services.bootstrap import Services
from services.games import create_game
from tests.support.harness import ServerThread
from tests.support.pipeline import eventually, services_for, stop_process, worker_process
from tests.support.players_stack import sign_up
from workers.fold import FoldWorker
from workers.jobs import bots
from workers.jobs.bots import DEADLINE_MARGIN_S, SEARCH_QUEUE, STRONG_SECONDS, bot_command_id
from workers.jobs.schedule import make_scheduler

LEVEL = "strong-0.2"
"""The quick level keeps the tests short; the job's deadline and its recording are the same for all."""


def _env(redis_url: str, services: Services) -> dict[str, str]:
    return {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_PARTITIONS": str(services.bus.partitions),
            "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip


@contextmanager
def bot_stack(redis_url: str, rq_workers: int = 2) -> Iterator[tuple[ServerThread, Services]]:
    """The gateway in a thread, a fold worker process and ``rq_workers`` rq worker processes."""
    services = services_for(redis_url)
    server = ServerThread(services, redis_url)
    fold = worker_process(redis_url, partitions=services.bus.partitions)
    command = [sys.executable, "-m", "services.cli", "rq-worker"]
    workers = [subprocess.Popen(command, env=_env(redis_url, services)) for _ in range(rq_workers)]
    server.start()
    try:
        yield server, services
    finally:
        server.stop()
        for process in [fold, *workers]:
            stop_process(process, timeout=30)


@contextmanager
def cpu_load() -> Iterator[None]:
    """One process spinning on a core for as long as the block runs."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def search_turns(services: Services) -> list[Job]:
    """The finished bot jobs that searched (their ``bot_turn`` record has a level)."""
    queue = Queue(SEARCH_QUEUE, connection=services.redis)
    ids = FinishedJobRegistry(queue=queue).get_job_ids()
    jobs = [job for job in Job.fetch_many(ids, connection=services.redis) if job is not None]
    return [job for job in jobs if job.meta.get("bot_turn", {}).get("level_s", 0) > 0]


def strong_moves(services: Services, game_id: str, seat: int) -> list[Any]:
    return [r for r in services.store.records(game_id) if r.seat == seat and r.status == "applied"]


def test_strong_turns_are_rq_jobs_within_their_deadline_spread_over_the_workers_under_load(
    redis_url, redis_client
) -> None:
    with bot_stack(redis_url) as (server, services), cpu_load(), httpx.Client(base_url=server.base) as api:
        games = []
        for n in range(4):  # search turns of several games at once: both workers have one to take
            body = {"game": "eic", "seats": 2, "bots": {"0": LEVEL, "1": "greedy"}, "game_id": f"strong-{n}"}
            made = api.post("/api/games", json=body)
            assert made.status_code == 201, made.text
            assert {"seat": 0, "bot": LEVEL} in made.json()["seats"]
            games.append(made.json()["game_id"])
        eventually(lambda: len(search_turns(services)) >= 12, timeout=180, message="12 search turns")
        turns = search_turns(services)

    assert len({job.worker_name for job in turns}) == 2, "the search turns were not spread over the workers"
    for job in turns:
        turn, game_id = job.meta["bot_turn"], job.args[1]
        assert game_id in games and turn["level_s"] == STRONG_SECONDS[LEVEL]
        seed = services.store.meta(game_id).seed
        move_id = bot_command_id(seed, turn["seq"], 0)
        assert services.store.result(game_id, move_id, 0, origin="bot").status == "applied"
        # The job's own account of its time. The search, the part the level governs, ends within the
        # margin of its level (or of the game's loading, should that alone have taken longer); the whole
        # turn, loading and sending included, within rq's timeout, the backstop (on this shared 2-core
        # machine at load averages of 13-18 the whole turn overran its deadline in 6 of 314 turns, by the
        # loading or the sending wherever the phases were printed: docs/history/benchmarks-notebook.md, "Strong turns").
        assert turn["chosen_s"] <= max(turn["level_s"], turn["loaded_s"]) + DEADLINE_MARGIN_S, turn
        assert turn["elapsed_s"] <= job.timeout and not turn["greedy_instead"], turn
        assert job.timeout == 1  # the deadline (0.45 s) in rq's whole seconds
    assert max(it for job in turns for it in job.meta["bot_turn"]["iterations"]) > 1  # they searched


def test_a_search_that_overruns_its_stop_is_cut_by_rq_and_plays_the_greedy_move(
    redis_url, redis_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backstop made to happen: a stop that never says stop (as a search stuck in one iteration would
    be) is cut by rq's timeout, and the seat plays the greedy move; the job ends, logged, the move applied.
    Run by a real rq worker in this process (``SimpleWorker``: rq's timeout is a SIGALRM in the main
    thread), the game folded by a real fold worker."""
    monkeypatch.setattr(bots.Budget, "__call__", lambda self: False)
    services = services_for(redis_url)
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, ())
    game_id, _ = create_game(services, "eic", 2, bots={0: LEVEL, 1: "greedy"}, redis_url=redis_url)
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)
    with capture_logs() as logged:
        for _ in range(20):  # until the strong seat's first turn was played
            if search_turns(services):
                break
            worker.work(burst=True)
            FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=scheduler).run(
                until_idle=True
            )
    (job,) = search_turns(services)
    turn = job.meta["bot_turn"]
    assert turn["greedy_instead"] and job.timeout == 1
    assert any(entry["event"] == "bot_search_timed_out" for entry in logged)
    move_id = bot_command_id(services.store.meta(game_id).seed, turn["seq"], 0)
    assert services.store.result(game_id, move_id, 0, origin="bot").status == "applied"


def test_unknown_bots_are_refused_with_a_4xx_and_a_reason(redis_url, redis_client) -> None:
    with bot_stack(redis_url, rq_workers=0) as (server, _), httpx.Client(base_url=server.base) as api:
        unknown = api.post("/api/games", json={"game": "eic", "seats": 2, "bots": {"1": "strong-9"}})
        assert unknown.status_code == 422 and "strong-9" in unknown.text
        no_search = api.post("/api/games", json={"game": "race", "seats": 2, "bots": {"1": "strong"}})
        assert no_search.status_code == 422 and "this game's bots are greedy, random" in no_search.text
        ann = sign_up(server.base, "ann")
        table = ann.post("/api/tables", json={"game": "race", "seats": 2, "bots": ["strong"]})
        assert table.status_code == 422 and table.json()["error"] == "unknown_bot"
        ann.close()


def test_new_bots_seats_strong_and_it_plays(redis_url, redis_client) -> None:
    with bot_stack(redis_url, rq_workers=1) as (_, services):
        env = _env(redis_url, services)
        new = [sys.executable, "-m", "services.cli", "new", "eic", "--seats", "2"]
        made = subprocess.run([*new, "--bots", json.dumps({"0": LEVEL, "1": "strong"})], env=env,
                              capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
        game_id = json.loads(made.stdout)["game_id"]
        assert services.store.meta(game_id).bots == {"0": LEVEL, "1": "strong"}
        eventually(lambda: len(strong_moves(services, game_id, 1)) >= 2, timeout=120, message="strong moved")
        refused = subprocess.run([*new, "--bots", '{"1": "strong-9"}'], env=env, capture_output=True,
                                 text=True, timeout=60)  # fmt: skip
        assert refused.returncode != 0 and "unknown bot 'strong-9'" in refused.stderr


def test_a_table_seats_strong_and_it_answers_its_person(redis_url, redis_client) -> None:
    with bot_stack(redis_url, rq_workers=1) as (server, services):
        ann = sign_up(server.base, "ann")
        table = ann.post("/api/tables", json={"game": "eic", "seats": 2, "bots": [LEVEL]})
        assert table.status_code == 201 and table.json()["bots"] == [LEVEL], table.text
        game_id = ann.post(f"/api/tables/{table.json()['table_id']}/start").json()["game_id"]
        assert services.store.meta(game_id).bots == {"1": LEVEL}
        for _ in range(40):  # Ann plays her default move whenever it is her turn, until the bot moved
            if len(strong_moves(services, game_id, 1)) >= 2:
                break
            loaded = services.store.load(game_id)
            if 0 in loaded.game.to_act(loaded.state):
                command = json.loads(codec.encode_command(default_move(loaded.game, loaded.state, 0)))
                sent = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": command})
                assert sent.status_code in (200, 409), sent.text
            else:
                at = loaded.seq
                eventually(lambda: services.store.load(game_id).seq > at, timeout=60, message="a bot move")  # noqa: B023
        assert len(strong_moves(services, game_id, 1)) >= 2
        ann.close()


def test_a_tournament_with_a_strong_bot_finishes_and_verifies(redis_url, redis_client, tmp_path) -> None:
    """A search's result depends on the clock; the log keeps the command it chose, so ``verify`` re-decides
    the game from its commands like any other (DESIGN.md: the seed draws chance, never a bot's choice)."""
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_LOG_LEVEL": "warning",
           "HARBORMASTER_ARCHIVE": str(tmp_path / "archive")}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", "tournament", *args], env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip

    ran = cli("run", "--game", "eic", "--rounds", "1", "--players", "2", "--table-size", "2",
              "--bots", f"{LEVEL},greedy", "--id", "tstrong")  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "winner" in ran.stdout.strip().splitlines()[-1], ran.stdout
    services = services_for(redis_url)
    (game_id,) = services.store.list_games()
    meta = services.store.meta(game_id)
    assert sorted(meta.bots.values()) == sorted([LEVEL, "greedy"]) and meta.status == "finished"
    assert len(search_turns(services)) > 10  # the strong seat's turns were rq jobs that searched
    exported = cli("export", "tstrong")
    assert exported.returncode == 0, exported.stderr[-2000:]
    (tmp_path / "tstrong.jsonl").write_text(exported.stdout)
    verified = cli("verify", str(tmp_path / "tstrong.jsonl"))
    assert verified.stdout.startswith("OK tstrong (finished): "), verified.stdout + verified.stderr
    assert "1 results proven" in verified.stdout, verified.stdout
