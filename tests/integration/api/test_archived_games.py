"""A finished tournament game trimmed from Redis after archiving opens and replays in the gateway, from its
archive: its state, outcome, every event and any earlier position (issue 33.2: it answered 500)."""

from __future__ import annotations

import httpx

from services.archive import archive_game
from tests.support.harness import ServerThread
from tests.support.pipeline import finished_race, services_for
from workers.jobs.archive_trigger import recorded_key


def test_an_archived_tournament_game_opens_and_replays(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="ta-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("ta"), game_id)  # its table recorded by the round job
    before = services.store.load(game_id)
    assert archive_game(services.store, game_id, tmp_path)["trimmed"]

    server = ServerThread(services, redis_url)
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            game = api.get(f"/api/games/{game_id}")
            assert game.status_code == 200, game.text
            body = game.json()
            assert (body["status"], body["seq"], body["last_seq"]) == ("finished", before.seq, before.seq)
            assert body["outcome"]["winners"] == list(before.game.outcome(before.state).winners)
            page = api.get(f"/api/games/{game_id}/events", params={"from": 0}).json()
            assert [e["seq"] for e in page["events"]] == list(range(1, before.seq + 1))
            first = api.get(f"/api/games/{game_id}", params={"at": 1})
            assert first.status_code == 200 and first.json()["seq"] == 1 and first.json()["status"] == "live"
    finally:
        server.stop()


def test_an_archive_gone_from_disk_is_a_404_not_a_500(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="tb-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("tb"), game_id)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["trimmed"]
    (tmp_path / f"{game_id}.jsonl.gz").unlink()
    server = ServerThread(services, redis_url)
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            answer = api.get(f"/api/games/{game_id}")
            assert answer.status_code == 404 and answer.json()["error"] == "unknown_game"
    finally:
        server.stop()
