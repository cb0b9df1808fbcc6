"""A real bot tournament's games, once played, archived and trimmed from Redis: each opens in the gateway
with its entrants' names on the seats and a link back to its tournament (issues 33.2 and 33.11), and the
CLI lists the tournament and shows its ratings as the page does (mu - 3 sigma)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx

from events import keys
from services import tournament_service as service
from services.archive import archive_missing, archived
from tests.support.harness import ServerThread
from tests.support.pipeline import eventually, services_for
from tests.support.tournaments import play_to_the_end, tournament_workers


def test_a_played_tournaments_games_open_with_names_and_a_link_back(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    services.bus.ensure_groups()
    archives = tmp_path / "archive"
    entrants = [{"name": "Ann Bonny", "bot": "greedy"}, {"name": "Mary Read", "bot": "random"},
                {"name": "Calico Jack", "bot": "greedy"}, {"name": "A name far longer than any seat shows", "bot": "random"}]  # fmt: skip
    spec = service.TournamentSpec(game="manila", rounds=1, table_size=4, id="named",
                                  entrants=[service.Entrant(**e) for e in entrants])  # fmt: skip
    tid = service.create(services, spec)
    with tournament_workers(redis_url, services.bus.partitions, archives):
        play_to_the_end(services, redis_url, tid, timeout_s=240)
        game_id = service.load(services, tid).rounds[0].games[0]
        eventually(lambda: archived(redis_client, [game_id]).get(game_id, {}).get("verified", False), timeout=60,
                   message="archived")  # fmt: skip
    archive_missing(services.store, [game_id], archives)
    assert services.store.meta(game_id).archive and not redis_client.exists(keys.events(game_id))  # trimmed
    state = service.load(services, tid)
    seats = [state.entrants[p].name for p in state.rounds[0].pairing.tables[0]]

    server = ServerThread(services, redis_url)
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            body = api.get(f"/api/games/{game_id}").json()
    finally:
        server.stop()
    assert body["status"] == "finished" and body["tournament_id"] == tid
    assert body["names"] == [name[:24] for name in seats]

    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_PARTITIONS": str(services.bus.partitions),
           "HARBORMASTER_LOG_LEVEL": "warning", "HARBORMASTER_ARCHIVE": str(archives), "COLUMNS": "200"}  # fmt: skip

    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "services.cli", "tournament", *args], env=env,
                              capture_output=True, text=True, timeout=60, check=True).stdout  # fmt: skip

    listed = [json.loads(line) for line in cli("list").splitlines()]
    assert [(t["tournament_id"], t["status"]) for t in listed] == [(tid, "finished")]
    table = cli("standings", tid)
    for row in service.standings_json(state):
        assert f"{row['rating']['ordinal']:.1f}" in table
