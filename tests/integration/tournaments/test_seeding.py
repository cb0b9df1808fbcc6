"""Tournaments seed by the accounts' ratings (issue 35): entrants tied to accounts of different ratings
are dealt strongest apart in round 1, the seeds are in the tournament's own stream, and the export verifies
(the pairing re-decided from it alone)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import msgspec
import pytest
import redis

from domain.tournament.ratings import Rating
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import rated_stack, sign_up
from workers.jobs.account_ratings import ratings_key, tournament_accounts_key

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
MU = {"Ann": 20.0, "Bob": 35.0, "Cid": 28.0, "Dee": 15.0, "Eve": 31.0}
"""Fay has no rating in the game: she is seeded with the default rating's ordinal (0)."""


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def test_a_tournament_of_accounts_pairs_by_their_ratings_and_verifies(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    spec = {"game": "manila", "entrants": [{"name": n} for n in NAMES], "rounds": 2, "table_size": 3,
            "id": "tseed"}  # fmt: skip
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        made = api.post("/api/tournaments", json=spec)
        assert made.status_code == 201, made.text
        keys = {p["name"]: p["key"] for p in made.json()["people"]}
        for name in NAMES:
            client = sign_up(stack.base, name.lower())
            tied = client.post("/api/tournaments/tseed/account", json={"key": keys[name]})
            client.close()
            assert tied.status_code == 200, tied.text
        accounts = {
            int(k): v.decode() for k, v in redis_client.hgetall(tournament_accounts_key("tseed")).items()
        }
        for player, account in accounts.items():
            if NAMES[player] in MU:  # as the fold worker's rating hook writes them
                rating = Rating(mu=MU[NAMES[player]], sigma=2.0)
                redis_client.hset(ratings_key("manila"), account, msgspec.json.encode(rating))
        organiser = {"Authorization": f"Bearer {made.json()['organiser_key']}"}
        started = api.post("/api/tournaments/tseed/start", headers=organiser)
        assert started.status_code == 200, started.text

    services = services_for(redis_url)
    state = service.load(services, "tseed")
    assert state.seeds == (14.0, 29.0, 22.0, 9.0, 25.0, 0.0)  # mu - 3 sigma; Fay the default
    # strongest first: Bob, Eve, Cid, Ann, Dee, Fay; dealt in snake order to two tables of 3
    tables = sorted(({NAMES[p] for p in table} for table in state.rounds[0].pairing.tables), key=len)
    assert sorted(tables, key=lambda t: "Bob" not in t) == [{"Bob", "Ann", "Dee"}, {"Eve", "Cid", "Fay"}]

    lines = list(service.export_lines(services, "tseed"))
    assert any(b'"seeds":[14.0,29.0,22.0,9.0,25.0,0.0]' in line for line in lines)
    report = verify_tournament_lines(lines)
    assert report.ok, report.problems
    assert report.rounds_checked == 1


def test_a_tournament_without_accounts_is_not_seeded(stack: ServerThread, redis_url: str) -> None:
    spec = {"game": "manila", "players": 6, "bots": ["random"], "rounds": 1, "table_size": 3, "id": "tnoseed"}
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        made = api.post("/api/tournaments", json=spec)
        assert made.status_code == 201, made.text
        organiser = {"Authorization": f"Bearer {made.json()['organiser_key']}"}
        assert api.post("/api/tournaments/tnoseed/start", headers=organiser).status_code == 200
    services = services_for(redis_url)
    assert service.load(services, "tnoseed").seeds == ()
    lines = list(service.export_lines(services, "tnoseed"))
    assert not any(b"seeds" in line for line in lines)
    assert verify_tournament_lines(lines).ok
