"""A master of a real local cluster is killed (``kill -9``) while a fold worker process folds commands sent
through the bus, with ``HARBORMASTER_REPLICA_ACK=wait``: the worker acknowledges an inbox entry only once a
replica has its append. The replica is promoted, the dead node comes back as its replica (as a StatefulSet
restarts a pod), and the service carries on: every command whose result a client saw is there at the end,
every command sent is applied exactly once, the inbox is empty, and every game verifies offline."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

from redis.cluster import RedisCluster

from events import keys
from services.bootstrap import Services, build
from services.config import Settings
from tests.cluster.failover_support import FAILURES, promoted, restart, wait_until
from tests.cluster.test_worker_on_cluster import assert_every_game_verifies
from tests.conftest import TEST_GAMES
from tests.support.pipeline import (
    COUNTER_PLUGIN,
    RACE_PLUGIN,
    new_race,
    services_for,
    stop_process,
    wait_for_results,
    worker_process,
)
from tests.support.redis_cluster import LocalCluster

PARTITIONS = 8
GAMES = 24
RESEND_AFTER_S = 15.0
"""A command without a result this long is sent again with its id (a submission lost with the master)."""
ACK_ENV = {"HARBORMASTER_REPLICA_ACK": "wait", "HARBORMASTER_REPLICA_ACK_TIMEOUT_MS": "1000"}


class NoteTaker:
    """A client on its own thread: one note at a time in every game, each sent once its previous one has a
    result (and sent again, same id, if it has none for ``RESEND_AFTER_S``); notes need no turn, so a note
    folded late is still applied."""

    def __init__(self, services: Services, game_ids: list[str]) -> None:
        self.services = services
        self.seen: dict[str, list[str]] = {g: [] for g in game_ids}
        """Per game, the notes whose result this client saw, in order."""
        self.sent: dict[str, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> NoteTaker:
        self._thread.start()
        return self

    def stop(self) -> list[tuple[str, str, int]]:
        """Stop sending; the commands sent whose results are still awaited."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=120)
        assert not self._thread.is_alive()
        return [(g, command_id, 0) for g, (command_id, _) in self.sent.items()]

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(*FAILURES):  # the cluster is between masters: try again shortly
                self._tick()
            time.sleep(0.02)

    def _tick(self) -> None:
        bus, store, now = self.services.bus, self.services.store, time.monotonic()
        due = []
        for game_id, notes in self.seen.items():
            command_id, sent_at = self.sent.get(game_id, ("", 0.0))
            if command_id and store.result(game_id, command_id, 0) is not None:
                notes.append(command_id)
                del self.sent[game_id]
                command_id = ""
            if not command_id:
                command_id = f"{game_id}-note{len(notes)}"
            elif now - sent_at < RESEND_AFTER_S:
                continue
            text = b'{"type":"Note","text":"%s"}' % command_id.encode()
            due.append(bus.message(game_id, 0, text, command_id))
            self.sent[game_id] = (command_id, now)
        if due:
            bus.submit_many(due)


def test_a_master_killed_under_a_fold_worker_with_wait_loses_no_seen_result(
    own_cluster: LocalCluster,
) -> None:
    settings = Settings(
        redis_url=own_cluster.url,
        data_dir=Path(".harbormaster-test").resolve(),
        partitions=PARTITIONS,
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
    )  # the test's own appends (the set-ups) unconfirmed: the WAITs counted are the worker's
    services = build(settings, own_cluster.url, games=TEST_GAMES)
    services.bus.ensure_groups()
    client: RedisCluster = services.redis
    game_ids = [f"w{n}" for n in range(GAMES)]
    for game_id in game_ids:
        new_race(services, game_id)
    victim = client.get_node_from_key(keys.events(game_ids[0])).port
    slot = client.keyslot(keys.events(game_ids[0]))
    worker = worker_process(own_cluster.url, PARTITIONS, extra_env=ACK_ENV)
    notes = NoteTaker(services, game_ids).start()
    try:
        wait_until(lambda: all(len(n) >= 3 for n in notes.seen.values()), 120, "3 notes in every game")
        own_cluster.kill(victim)
        before = {g: len(n) for g, n in notes.seen.items()}
        wait_until(lambda: promoted(own_cluster, victim, slot), 120, "the victim's replica promoted")
        restart(own_cluster, victim)
        wait_until(
            lambda: promoted(own_cluster, victim, slot, replicas=1), 120, "the dead node back as replica"
        )
        wait_until(
            lambda: all(len(notes.seen[g]) >= before[g] + 3 for g in game_ids),
            180,
            "3 more notes in every game",
        )
        awaited = notes.stop()
        wait_for_results(services, awaited, timeout=120)
        wait_until(lambda: services.bus.backlog() == 0, 120, "the inbox drained")
    finally:
        notes.stop()
        code = stop_process(worker, timeout=60)
    assert code == 0, "a warm stop exits cleanly"
    for game_id in game_ids:
        applied = [r.command_id for r in services.store.records(game_id) if r.status == "applied"][1:]
        expected = notes.seen[game_id] + [c for g, (c, _) in notes.sent.items() if g == game_id]
        assert set(notes.seen[game_id]) <= set(applied), f"{game_id} lost a result a client saw"
        assert sorted(applied) == sorted(expected), f"{game_id}: applied {applied}, sent {expected}"
    assert_every_game_verifies(services, game_ids)
    assert own_cluster.command_calls("wait") > 0, "the worker sent WAIT"


def test_a_worker_with_wait_and_no_replica_appends_but_acknowledges_nothing(redis_url: str) -> None:
    services = services_for(redis_url, partitions=PARTITIONS)
    services.bus.ensure_groups()
    new_race(services, "alone")
    worker = worker_process(
        redis_url, PARTITIONS, extra_env={**ACK_ENV, "HARBORMASTER_REPLICA_ACK_TIMEOUT_MS": "50"}
    )
    try:
        wanted = []
        for n in range(3):
            message = services.bus.message("alone", 0, b'{"type":"Note","text":"x"}', f"alone-{n}")
            services.bus.submit_many([message])
            wanted.append(("alone", message.command_id, 0))
        wait_for_results(services, wanted, timeout=120)  # appended on the master, confirmed by no replica
        partition = keys.partition_for("alone", PARTITIONS)
        pending = services.redis.xpending(keys.inbox(partition), keys.GROUP)["pending"]
        assert pending == 3, "an entry whose append no replica confirmed stays unacknowledged"
        applied = [r.command_id for r in services.store.records("alone") if r.status == "applied"][1:]
        assert applied == [c for _, c, _ in wanted]  # each once, though decided again on every retry
    finally:
        stop_process(worker, timeout=60)
