"""``TournamentStore.load`` goes on from the process's last fold of a tournament (issue 42: a 10,000-player
tournament took about a second a round to fold from its first event, and a round job loads it three
times): what it returns is always what a fold of every event gives, also after another client appended,
and a tournament created again under the same id (another Redis, a flushed one) is folded from its own
events, never from the fold kept of the other."""

from __future__ import annotations

import redis

from domain.tournament import State, fold
from domain.tournament import rules as tournament_rules
from events import tournament_store
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from tests.support.pipeline import services_for
from tests.support.tournaments import record_round


def _folded(store: TournamentStore, tid: str) -> State:
    return fold([decode(e) for e in store.envelopes(tid)])


def test_a_load_goes_on_from_the_last_fold_and_equals_a_fold_of_every_event(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = service.create(
        services, service.TournamentSpec(game="manila", rounds=3, table_size=3, players=9, id="sf")
    )
    mine, other = TournamentStore(services.redis), TournamentStore(redis.Redis.from_url(redis_url))
    loaded = mine.load(tid)
    assert mine.append(loaded, "start", tournament_rules.start(loaded.state)).status == "ok"
    for number in (1, 2, 3):
        before = mine.load(tid)
        record_round(other, tid, number)  # another client appends; this one's fold is behind
        after = mine.load(tid)
        assert after.seq > before.seq and after.state == _folded(mine, tid)
        assert tournament_store._FOLDS[tid] is after and mine.load(tid) is after  # nothing new: kept
    assert mine.load(tid).state.status == "finished"
    other.redis.close()


def test_a_tournament_made_again_under_the_same_id_is_folded_from_its_own_events(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    spec = service.TournamentSpec(game="manila", rounds=1, table_size=3, players=6, id="same")
    store = TournamentStore(services.redis)
    first = store.load(service.create(services, spec))
    assert len(first.state.entrants) == 6
    redis_client.flushdb()  # the same id, another tournament: the kept fold's chain is not its chain
    service.create(
        services, service.TournamentSpec(game="manila", rounds=1, table_size=3, players=9, id="same")
    )
    again = store.load("same")
    assert again.seq == first.seq and again.hash != first.hash
    assert len(again.state.entrants) == 9 and again.state == _folded(store, "same")
