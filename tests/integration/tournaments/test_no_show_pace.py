"""Issue 42.6: a no-show played at the reconcile pass's pace (a default move every ~3 s, so an El Capitán
round with one no-show took 730 s). Now the no-show's first default move comes when its deadline passes
and each later turn of the seat at once, with no reconcile pass at all: the fold worker's hook
(``ClockTrigger``) claims a no-show's turn as soon as it is his, or arms the game's deadline, which the
clock watcher (``ClockWatcher``) claims when it falls due. The export verifies: each timeout was due.

No timed assertion (they fail on a loaded machine): the first timeout is no earlier than its deadline, and
the watcher is stopped once it is recorded, so that the table can only finish (with no reconcile pass and no
watcher) if the hook plays each of the no-show's later turns the moment they are his. The gaps only print."""

from __future__ import annotations

import time

from domain.tournament import Entrant, TableFinished
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import DUE
from workers.jobs.clock_due import ClockTrigger, ClockWatcher

ROLL = b'{"type":"Roll"}'
NO_SHOW_MS = 600


def test_a_no_show_plays_at_its_deadline_then_at_once_without_a_reconcile_pass(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    people = [Entrant(name="ann"), Entrant(name="bob")]  # bob never comes; ann moves at once
    spec = service.TournamentSpec(game="race", entrants=people, rounds=1, table_size=2, options={"goal": 30},
                                  points={2: [6, 1], 1: [6]}, no_show_s=NO_SHOW_MS / 1000, id="tpace")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)  # opens the round: the game's first deadline is armed
    state = service.load(services, tid)
    game_id, table = state.rounds[0].games[0], state.rounds[0].pairing.tables[0]
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20,
                        on_applied=ClockTrigger(services.store, services.bus))  # fmt: skip
    watcher = ClockWatcher(services.store, services.bus)
    watcher.start()
    watched = 0  # bob's timeouts recorded when the watcher was stopped
    try:
        deadline = time.monotonic() + 30  # a guard against a wedge, far above any machine's pace
        while services.store.meta(game_id).status != "finished":
            assert time.monotonic() < deadline, "the table never finished without a reconcile pass"
            loaded = services.store.load(game_id)
            if table[loaded.state.turn] == 0:
                services.bus.submit(game_id, loaded.state.turn, ROLL, None)
            worker.run(until_idle=True)
            watched = watched or sum(r.origin == "clock" for r in services.store.records(game_id))
            if watched and watcher.is_alive():
                watcher.stop()  # bob's first timeout is in: from here on only the hook can play his turns
                watcher.join(5)
            time.sleep(0.02)
    finally:
        watcher.stop()
        watcher.join(5)

    envelopes = services.store.read(game_id)
    records = {r.command_id: r for r in services.store.records(game_id)}
    gaps = []  # (ms since the event before, bob's timeouts so far) of each of bob's timeouts
    for envelope in envelopes:
        record = records.get(envelope.command_id)
        if record is None or record.origin != "clock" or envelope.seq != record.first_seq:
            continue
        gaps.append(envelope.ts_ms - envelopes[envelope.seq - 2].ts_ms)
    print(f"\nbob's timeouts, ms after the event before each: {gaps}")  # measured idle: 643, then 47 and 36
    assert len(gaps) >= 4, gaps  # a die moves 6 at most: 5 rolls at least to reach 30, bob 4 of them or more
    assert watched == 1, watched  # the watcher stopped after the first: the later ones were the hook's
    assert gaps[0] >= NO_SHOW_MS, gaps  # the first no earlier than its deadline
    assert services.redis.zscore(DUE, game_id) is None  # a finished game is no longer armed

    state = service.reconcile(services, redis_url, tid)  # records the table (the round job's work)
    assert state.status == "finished"
    [result] = [
        e for e in map(decode, TournamentStore(services.redis).envelopes(tid)) if isinstance(e, TableFinished)
    ]
    assert result.absent == (1,)  # bob, player 1
    report = verify_tournament_lines(list(service.export_lines(services, tid)))
    assert report.ok, report.problems  # every timeout due by the clock's rule, as verify re-checks it
