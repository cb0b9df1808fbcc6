"""Issue 44: what happens to a table's seat is an event of the game's log (``domain/seat_control.py``):
the clock's hand-over to the stand-in bot, the player's taking it back, and the others' vote to end the game
when a player's time ran out, each in the export, decided again by ``verify``, and the vote's result rated
with the absent player last. A player cannot send the clock's own command.

Real pieces: the gateway, its fold worker (rating hook on) and bot player in threads (``rated_stack``). Every
claim is made at a moment the seat's time has run out (the clock's ``now`` is a parameter)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from events import codec
from events.clocks import seat_clocks
from events.command_ids import timeout_command_id
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.client import wait_until
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import rated_stack, sign_up
from workers.jobs.clock import seat_after_timeout
from workers.jobs.rating_inputs import abandoned_and_end
from workers.jobs.table_clocks import resigned_key


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def three_at_a_table(stack: ServerThread, on_timeout: str) -> tuple[list[httpx.Client], str]:
    people = [sign_up(stack.base, name) for name in ("ann", "bob", "eve")]
    return people, at_a_table(people, on_timeout)


def at_a_table(people: list[httpx.Client], on_timeout: str) -> str:
    opened = people[0].post(
        "/api/tables",
        json={
            "game": "race",
            "seats": 3,
            "options": {"goal": 200},
            "clock": {"preset": "day", "on_timeout": on_timeout},
        },
    )
    assert opened.status_code == 201, opened.text
    table_id = opened.json()["table_id"]
    people[1].post(f"/api/tables/{table_id}/join")
    game_id: str = people[2].post(f"/api/tables/{table_id}/join").json()["game_id"]
    return game_id


def kinds(redis_url: str, game_id: str) -> list[str]:
    return [e.type for e in services_for(redis_url).store.read(game_id)]


def time_out_ann(redis_url: str, game_id: str) -> None:
    """The clock's part when ann's day ran out: what its hook sends behind her applied timeout
    (``seat_after_timeout``, tested on its own in ``tests/unit/events/test_seat_after_timeout.py``), sent here
    at once, as the fold worker refuses a timeout claimed before the log's times make it due."""
    services = services_for(redis_url)
    loaded = services.store.load(game_id)
    clocks = seat_clocks(services.store.read(game_id))
    clocks.last_command_id = timeout_command_id(loaded.meta.seed, loaded.seq, 0)  # as if it were her timeout
    after = seat_after_timeout(loaded, clocks, "vote")
    assert after is not None
    seat, command, command_id = after
    services.bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")


def clock_of(client: httpx.Client, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/api/games/{game_id}/clock").json()
    return body


def test_a_majority_of_the_others_ends_the_game_with_the_absent_player_last(
    stack: ServerThread, redis_url: str
) -> None:
    (ann, bob, eve), game_id = three_at_a_table(stack, "vote")
    refused = bob.post(f"/api/games/{game_id}/vote", json={"end": True})
    assert (refused.status_code, refused.json()["error"]) == (409, "seat_no_vote")
    faked = bob.post(
        f"/api/games/{game_id}/commands", json={"command": {"type": "TimeOutSeat", "then": "vote"}}
    )
    assert (faked.status_code, faked.json()["error"]) == (403, "clock_only_command")
    bare = bob.post(f"/api/games/{game_id}/commands", json={"command": {"type": "Resign"}})
    assert (bare.status_code, bare.json()["error"]) == (
        409,
        "seat_command_endpoint",
    )  # its endpoint checks the table
    time_out_ann(redis_url, game_id)
    wait_until(lambda: "EndVoteOpened" in kinds(redis_url, game_id))
    shown = clock_of(bob, game_id)
    assert shown["vote"] == {"seat": 0, "voters": [1, 2], "votes": {}}
    assert shown["seats"][0]["bot_plays"] and shown["on_timeout"] == "vote"
    absent = ann.post(f"/api/games/{game_id}/vote", json={"end": False})
    assert (absent.status_code, absent.json()["error"]) == (409, "seat_not_a_voter")
    assert bob.post(f"/api/games/{game_id}/vote", json={"end": True}).status_code == 200
    assert clock_of(eve, game_id)["vote"]["votes"] == {"1": True}
    assert bob.post(f"/api/games/{game_id}/vote", json={"end": True}).json()["error"] == "seat_voted"
    assert eve.post(f"/api/games/{game_id}/vote", json={"end": True}).status_code == 200
    wait_until(lambda: bob.get(f"/api/games/{game_id}").json()["status"] == "finished")
    assert kinds(redis_url, game_id)[-2:] == ["EndVoteCast", "GameEndedByVote"]
    rows = {r["account"]: r for r in ratings_of(stack.base, game_id)["changes"]}
    assert (rows["ann"]["place"], rows["ann"]["abandoned"]) == (2, True)  # last (places count from 0)
    assert rows["ann"]["change"] < 0
    report = verify_lines(list(export_lines(services_for(redis_url).store, game_id)), TEST_GAMES)
    assert report.ok and report.decisions_checked, report.problems
    for client in (ann, bob, eve):
        client.close()


def test_a_vote_to_play_on_closes_it_and_the_player_takes_the_seat_back(
    stack: ServerThread, redis_url: str
) -> None:
    (ann, bob, eve), game_id = three_at_a_table(stack, "vote")
    time_out_ann(redis_url, game_id)
    wait_until(lambda: "EndVoteOpened" in kinds(redis_url, game_id))
    assert bob.post(f"/api/games/{game_id}/vote", json={"end": False}).status_code == 200
    assert eve.post(f"/api/games/{game_id}/vote", json={"end": False}).status_code == 409  # closed: 1 of 2 no
    assert clock_of(ann, game_id)["vote"] is None
    assert bob.get(f"/api/games/{game_id}").json()["status"] == "live"
    assert ann.post(f"/api/games/{game_id}/take-back").status_code == 200
    assert not clock_of(ann, game_id)["seats"][0]["away"]
    assert kinds(redis_url, game_id)[-1] == "SeatTakenBack"
    report = verify_lines(list(export_lines(services_for(redis_url).store, game_id)), TEST_GAMES)
    assert report.ok, report.problems
    for client in (ann, bob, eve):
        client.close()


def test_who_left_is_read_from_the_log_and_from_an_older_games_record(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    """The rating's "who left" (``rating_inputs.abandoned_and_end``): a resignation and a hand-over not taken
    back, from the log; a seat handed over and taken back has not left; a game resigned before the events
    kept its seats in a set beside the log, which is still read."""
    (ann, bob, eve), game_id = three_at_a_table(stack, "bot")
    assert abandoned_and_end(redis_client, game_id)[0] == set()
    assert bob.post(f"/api/games/{game_id}/resign").status_code == 200
    services = services_for(redis_url)
    for seat in (0, 2):  # the clock hands both over; ann takes hers back
        after = seat_after_timeout(services.store.load(game_id), timed_out(redis_url, game_id, seat), "bot")
        assert after is not None
        services.bus.submit(game_id, seat, codec.encode_command(after[1]), after[2], origin="clock")
        wait_until(
            lambda s=seat: any(
                e.type == "SeatHandedToBot" and e.seat == s for e in services.store.read(game_id)
            )
        )
    assert ann.post(f"/api/games/{game_id}/take-back").status_code == 200
    assert abandoned_and_end(redis_client, game_id)[0] == {1, 2}
    older = at_a_table([ann, bob, eve], "bot")
    redis_client.sadd(resigned_key(older), 2)  # as a game resigned before the events recorded it
    assert abandoned_and_end(redis_client, older)[0] == {2}
    for client in (ann, bob, eve):
        client.close()


def timed_out(redis_url: str, game_id: str, seat: int) -> Any:
    services = services_for(redis_url)
    loaded = services.store.load(game_id)
    clocks = seat_clocks(services.store.read(game_id))
    clocks.last_command_id = timeout_command_id(loaded.meta.seed, loaded.seq, seat)
    return clocks
