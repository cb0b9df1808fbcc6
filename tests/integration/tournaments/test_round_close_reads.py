"""A round's close reads each finished game's outcome as the fold worker's hook stored it at the game's
end, in one batch, and loads a game only when no outcome is stored at its position (issue 46, item 4: it
loaded every finished game cold). The tournament is loaded once: the acting works on the state decided."""

from __future__ import annotations

import msgspec
from rq import Queue

from domain.engine import Outcome
from services import tournament_service as service
from tests.support.pipeline import services_for
from tests.support.tournaments import fold_worker, race_tournament, roll_out, round_hook
from workers.jobs.round_results import StoredOutcome, keep_outcome, outcomes_key
from workers.jobs.tournament import TOURNAMENT_QUEUE


def _position(services, game_id: str) -> tuple[int, str]:
    meta = services.store.meta(game_id)
    return meta.last_seq, meta.last_hash


def test_the_hook_stores_each_outcome_at_its_position_and_the_close_records_them(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "treads")
    worker = fold_worker(services, round_hook(services, redis_client, redis_url))
    games = list(service.load(services, tid).rounds[0].games)
    roll_out(services, worker, games)
    stored = redis_client.hgetall(outcomes_key(tid, 1))
    assert sorted(stored) == sorted(g.encode() for g in games)
    for game_id in games:
        kept = msgspec.msgpack.decode(stored[game_id.encode()], type=StoredOutcome)
        loaded = services.store.load(game_id)
        assert (kept.seq, kept.hash) == _position(services, game_id) == (loaded.seq, loaded.hash)
        assert kept.outcome == loaded.game.outcome(loaded.state)
    assert (
        Queue(TOURNAMENT_QUEUE, connection=redis_client).count == 1
    )  # the last game's hook queued the close
    state = service.reconcile(services, redis_url, tid)  # closes it here, as the round job would
    assert state.status == "finished"
    for table, game_id in enumerate(games):
        loaded = services.store.load(game_id)
        outcome = loaded.game.outcome(loaded.state)
        result = state.rounds[0].results[table]
        assert result is not None and result.final_hash == loaded.hash
        assert result.scores == tuple(outcome.scores[s] for s in outcome.ranking)
    assert not redis_client.exists(outcomes_key(tid, 1))  # recorded: nothing reads them again


def test_an_outcome_stored_at_the_position_is_taken_and_one_elsewhere_is_not(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "tstale")
    worker = fold_worker(services)  # no hook: none stored
    games = list(service.load(services, tid).rounds[0].games)
    roll_out(services, worker, games)
    second_game = services.store.load(games[1])
    outcome = second_game.game.outcome(second_game.state)
    # Both stored outcomes rank seat 1 first on made-up scores: the first at its game's very position (the
    # close takes it as the hook's and loads nothing), the second at a position its game has left (the close
    # loads that game and records its own outcome).
    made_up = Outcome(ranking=(1, 0), scores=(3, 99), winners=(1,))
    seq, chain_hash = _position(services, games[0])
    pipe = redis_client.pipeline()
    keep_outcome(pipe, tid, 1, games[0], StoredOutcome(seq=seq, hash=chain_hash, outcome=made_up))
    keep_outcome(pipe, tid, 1, games[1], StoredOutcome(seq=seq - 1, hash="0" * 64, outcome=made_up))
    pipe.execute()
    state = service.reconcile(services, redis_url, tid)
    first, second = state.rounds[0].results
    assert first is not None and second is not None
    assert first.scores == (99, 3) and first.final_hash == chain_hash
    assert second.scores == tuple(outcome.scores[s] for s in outcome.ranking)
    assert second.final_hash == second_game.hash


def test_a_close_waits_while_a_game_goes_on(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "twait")
    worker = fold_worker(services, round_hook(services, redis_client, redis_url))
    games = list(service.load(services, tid).rounds[0].games)
    roll_out(services, worker, games[:1])
    state = service.reconcile(services, redis_url, tid)
    assert state.rounds[0].results == (None, None) and state.status == "running"
    roll_out(services, worker, games[1:])
    assert service.reconcile(services, redis_url, tid).status == "finished"


def test_a_stored_value_that_does_not_decode_is_passed_over_for_a_load(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "tgarbled")
    worker = fold_worker(services)
    games = list(service.load(services, tid).rounds[0].games)
    roll_out(services, worker, games)
    redis_client.hset(outcomes_key(tid, 1), mapping={g: b"\xc1 not msgpack" for g in games})
    state = service.reconcile(services, redis_url, tid)
    assert state.status == "finished"
    assert service.describe(services, tid)["status"] == "finished"  # not set aside as failed
    for table, game_id in enumerate(games):
        loaded = services.store.load(game_id)
        outcome = loaded.game.outcome(loaded.state)
        result = state.rounds[0].results[table]
        assert result is not None and result.scores == tuple(outcome.scores[s] for s in outcome.ranking)
