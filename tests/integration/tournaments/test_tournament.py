"""A small Swiss tournament of each game end to end: Redis, rq workers, fold workers and server bots,
with a fold worker and an rq worker killed midway. It still finishes, the standings agree with the games'
own outcomes, every game verifies, the tournament's chain holds, and no round was paired twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domain.tournament import RoundPaired, current_standings
from domain.tournament.points import PointsByPlace, table_points
from events.chain import first_broken_link
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.verify import verify_file, verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import eventually, services_for, stop_process, worker_process

# Lean: small tables, two rounds; 5 players leave a remainder (a smaller table, or a bye in Manila).
CASES = [("manila", 3, 7), ("elcapitan", 2, 5), ("eic", 2, 5)]


def _rq_worker(url: str, partitions: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_PARTITIONS": str(partitions),
           "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker", "--no-fork"], env=env)


@pytest.mark.parametrize(("game", "table_size", "players"), CASES)
def test_a_swiss_tournament_survives_killed_workers(
    redis_url, redis_client, game, table_size, players
) -> None:
    services = services_for(redis_url)
    services.bus.ensure_groups()
    partitions = services.bus.partitions
    spec = service.TournamentSpec(game=game, rounds=2, table_size=table_size, players=players,
                                  bots=["greedy", "random"])  # fmt: skip
    tid = service.create(services, spec)
    folds = [worker_process(redis_url, partitions) for _ in range(2)]
    rqs = [_rq_worker(redis_url, partitions) for _ in range(2)]
    try:
        service.start(services, redis_url, tid)
        # Midway: once round 1's games have moved on, kill a fold worker and an rq worker outright.
        first_games = service.load(services, tid).rounds[0].games
        eventually(lambda: min(services.store.meta(g).last_seq for g in first_games) > 15, timeout=120,
                   message="round 1 under way")  # fmt: skip
        folds[0].send_signal(signal.SIGKILL)
        rqs[0].send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 300
        while service.load(services, tid).status != "finished":
            assert time.monotonic() < deadline, service.summary(service.load(services, tid), full=False)
            service.reconcile(services, redis_url, tid)  # what `tournament run` and serve do now and then
            time.sleep(1.0)
    finally:
        for process in (*folds, *rqs):
            if process.poll() is None:
                stop_process(process)

    state = service.load(services, tid)
    # No round paired twice, and the tournament's own chain holds.
    tournaments = TournamentStore(services.redis)
    envelopes = tournaments.envelopes(tid)
    assert [e.round for e in map(decode, envelopes) if isinstance(e, RoundPaired)] == [1, 2]
    assert first_broken_link(tournaments.header(tid), envelopes) is None
    # Standings agree with points computed here from each game's own outcome.
    expected = dict.fromkeys(range(players), 0)
    points = PointsByPlace()
    for played in state.rounds:
        for player in played.pairing.byes:
            expected[player] += points.bye
        for seats, game_id in zip(played.pairing.tables, played.games, strict=True):
            loaded = services.store.load(game_id)
            outcome = loaded.game.outcome(loaded.state)
            assert outcome is not None
            ranking = tuple(seats[s] for s in outcome.ranking)
            # Equal scores share a place in Manila and El Capitán; East India Companies breaks every tie.
            ordered = [outcome.scores[s] for s in outcome.ranking]
            places = [ordered.index(v) if game != "eic" else i for i, v in enumerate(ordered)]
            for player, scored in table_points(points, ranking, places).items():
                expected[player] += scored
            # Every game verifies offline, every decision re-checked with the revealed seed.
            report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
            assert report.ok and report.decisions_checked, report.problems
            assert loaded.hash == played.results[played.pairing.tables.index(seats)].final_hash
    assert {row.player: row.values[0] for row in current_standings(state)} == expected
    assert state.winners


def test_the_cli_runs_a_bot_tournament_and_shows_it(redis_url, redis_client, tmp_path) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_LOG_LEVEL": "warning", "COLUMNS": "160",
           "HARBORMASTER_ARCHIVE": str(tmp_path / "archive")}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", "tournament", *args], env=env,
                              capture_output=True, text=True, timeout=240, check=True)  # fmt: skip

    ran = cli("run", "--game", "elcapitan", "--format", "swiss", "--rounds", "1", "--players", "4",
              "--table-size", "2", "--bots", "greedy,random", "--rq-workers", "1", "--id", "tcli")  # fmt: skip
    last = ran.stdout.strip().splitlines()[-1]
    assert "elcapitan swiss: 4 players, 1 rounds, 2 games" in ran.stdout.replace("\n", " "), ran.stdout
    assert "winner" in last
    assert "opponents points" in ran.stdout
    status = cli("status", "tcli")
    assert '"status": "finished"' in status.stdout
    exported = cli("export", "tcli").stdout.splitlines()
    assert exported[0].startswith('{"kind":"header"')
    games = [json.loads(line) for line in exported if '"kind":"game"' in line]
    assert len(games) == 2
    for game in games:  # each game archived, and the archive holds the game up to its final hash
        assert game["archive"] == str(tmp_path / "archive" / f"{game['game_id']}.jsonl.gz")
        assert game["archive_last_hash"] == game["final_hash"]
        assert verify_file(Path(game["archive"]), TEST_GAMES).finished
    assert "greedy-1" in cli("standings", "tcli").stdout
    export_file = tmp_path / "tcli.jsonl"
    export_file.write_text("\n".join(exported) + "\n")
    verified = cli("verify", str(export_file)).stdout  # the archives from HARBORMASTER_ARCHIVE
    assert verified.startswith("OK tcli (finished): ") and "2 results proven" in verified, verified
