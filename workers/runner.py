"""Running a fold worker as a process: signals and the bot hook wired in, and a Redis outage outlived.

When Redis goes away (restarted by ``serve``, a failover, a network cut) the worker does not exit: it drops
what it had in hand (the commands stay pending in the inbox, and their appends are idempotent), waits with
a growing back-off, and starts folding again with a fresh worker on the same process.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import redis
import structlog
from redis.cluster import RedisCluster
from redis.exceptions import ClusterDownError, MasterDownError, RedisClusterException, SlotNotCoveredError
from rq import Queue

from events.bus import CommandBus
from events.store import EventStore, LoadedGame
from workers.botrunner import runners_alive, start_in_thread
from workers.fold import FoldWorker
from workers.jobs.account_ratings import RatingTrigger
from workers.jobs.archive_trigger import ARCHIVE_QUEUE, ArchiveTrigger
from workers.jobs.bots import BOT_QUEUE
from workers.jobs.clock_due import ClockTrigger, ClockWatcher
from workers.jobs.failures import TRANSIENT
from workers.jobs.schedule import BotScheduler
from workers.jobs.tournament import TOURNAMENT_QUEUE, TournamentTrigger

log = structlog.get_logger("runner")


REDIS_DOWN = (
    redis.ConnectionError,
    redis.TimeoutError,
    OSError,
    ClusterDownError,
    MasterDownError,
    SlotNotCoveredError,
)
"""What a Redis outage raises (``BusyLoadingError`` while it loads its data is a ``ConnectionError``; on a
Cluster, a master lost and not yet replaced answers ``CLUSTERDOWN``, or its slots are not covered)."""

RECONNECT_FIRST_S = 0.2
RECONNECT_MOST_S = 5.0


class WorkerLife:
    """The process's current fold worker, and whether a stop was asked for (across reconnects)."""

    def __init__(self) -> None:
        self.worker: FoldWorker | None = None
        self.stopping = False


def install_stop_signals(life: WorkerLife) -> None:
    """First SIGTERM/SIGINT: warm stop (finish the batch in flight). Second: leave at once."""

    def handle(signum: int, frame: FrameType | None) -> None:
        if life.stopping:
            log.warning("hard_stop", signal=signum)
            raise SystemExit(1)
        log.info("warm_stop", signal=signum)
        life.stopping = True
        if life.worker is not None:
            life.worker.request_stop()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def run_fold_worker(
    store: EventStore,
    bus: CommandBus,
    redis_url: str,
    bot_delay_s: float = 0.0,
    batch_size: int = 256,
    plugins: tuple[str, ...] = (),
    archive_dir: str | None = None,
    rq: redis.Redis | None = None,
    plain_transport: bool = False,
) -> int:
    """A fold worker process's whole life; returns the number of commands it folded. With ``archive_dir``
    each game that ends is archived there by an rq job. Bot turns, round and archive jobs go on ``rq``, the
    rq queues' Redis (default: the data's own; on a Cluster, a standalone one: rq cannot run on a Cluster)."""
    queues = rq if rq is not None else store.redis
    trigger = BotScheduler(
        queue=Queue(BOT_QUEUE, connection=queues),
        redis_url=redis_url,
        delay_s=bot_delay_s,
        partitions=bus.partitions,
        plugins=plugins,
    )
    tournaments = TournamentTrigger(store.redis, queues, redis_url, bus.partitions, plugins)
    archive = ArchiveTrigger(store.redis, queues, redis_url, archive_dir, plugins)
    ratings = RatingTrigger(store.redis)  # accounts' ratings move when their rated game ends
    clocks = ClockTrigger(store, bus)  # a timeout at its deadline, a no-show's later turns at once

    runners = RunnersAlive(store.redis)

    def after_applied(game_id: str, loaded: LoadedGame) -> None:
        if not runners():  # a live bot runner plays the bots from the game's events: no job per move
            _isolated("bot_trigger", trigger, game_id, loaded)
        _isolated("tournament_trigger", tournaments, game_id, loaded)
        _isolated("archive_trigger", archive, game_id, loaded)
        _isolated("rating_trigger", ratings, game_id, loaded)
        _isolated("clock_trigger", clocks, game_id, loaded)

    life = WorkerLife()
    install_stop_signals(life)
    # Folding a command leaves next to no reference cycles (0-24 unreachable objects per 50,000 commands,
    # measured), but the cyclic collector's pauses were most of the p99 latency (52-68 ms at 28,000/s with
    # it, 17-20 ms without). So start-up objects are frozen out of its scans and it is turned off; the
    # worker collects by hand now and then (FoldWorker._collect_cycles).
    gc.freeze()
    gc.disable()
    watcher = ClockWatcher(store, bus)
    watcher.start()
    try:
        return _fold_until_stopped(life, store, bus, after_applied, batch_size, plain_transport)
    finally:
        watcher.stop()


def _fold_until_stopped(
    life: WorkerLife,
    store: EventStore,
    bus: CommandBus,
    after_applied: Callable[[str, LoadedGame], None],
    batch_size: int,
    plain_transport: bool,
) -> int:
    """Fold with a fresh worker after each Redis outage until a stop is asked for."""
    folded, wait_s = 0, RECONNECT_FIRST_S
    while not life.stopping:
        started = time.monotonic()
        try:
            life.worker = FoldWorker(
                store.redis,
                store,
                bus,
                on_applied=after_applied,
                batch_size=batch_size,
                plain_transport=plain_transport,
            )
            if life.stopping:
                break
            folded += life.worker.run()
        except REDIS_DOWN as exc:
            if life.stopping:
                break
            wait_s = _wait_out(exc, store.redis, started, wait_s)
    return folded


def _isolated(hook: str, call: Callable[[str, LoadedGame], None], game_id: str, loaded: LoadedGame) -> None:
    """Run one hook of an applied command. Redis errors go up (the worker reconnects); any other error is
    this game's (an id rq refuses, a record it cannot read): logged, and the worker folds on."""
    try:
        call(game_id, loaded)
    except TRANSIENT:
        raise
    except Exception:
        log.exception("hook_failed", hook=hook, game_id=game_id)


def _wait_out(outage: Exception, client: Any, started: float, wait_s: float) -> float:
    """After a Redis outage met by a run begun at ``started``: log it, drop the client's connections (a
    Cluster client also reads its slot map again, if any node answers: a replica may have taken a lost
    master's place) and wait ``wait_s``, or the first wait again after 30 s of running. Returns the next
    wait, twice as long, up to ``RECONNECT_MOST_S``."""
    if time.monotonic() - started > 30:
        wait_s = RECONNECT_FIRST_S
    log.warning("redis_unreachable", error=str(outage) or type(outage).__name__, retry_in_s=wait_s)
    if isinstance(client, RedisCluster):
        client.disconnect_connection_pools()  # type: ignore[no-untyped-call]
        with contextlib.suppress(*REDIS_DOWN, RedisClusterException):
            client.nodes_manager.initialize()
    else:
        client.connection_pool.disconnect()
    time.sleep(wait_s)
    return min(RECONNECT_MOST_S, wait_s * 2)


class RunnersAlive:
    """``runners_alive``, asked at most once a second (the fold worker calls it after every command)."""

    def __init__(self, client: Any, every_s: float = 1.0) -> None:
        self.redis = client
        self.every_s = every_s
        self._answer = False
        self._asked = -every_s

    def __call__(self) -> bool:
        now = time.monotonic()
        if now - self._asked >= self.every_s:
            self._asked = now
            self._answer = runners_alive(self.redis)
        return self._answer


def run_rq_worker(
    client: redis.Redis,
    logging_level: str,
    no_fork: bool = False,
    bots: tuple[EventStore, CommandBus, float] | None = None,
) -> None:
    """An rq worker for bot turns and tournament rounds that outlives a Redis outage: rq retries its own
    reads of the queue, but an outage elsewhere in its loop (a heartbeat, a registry clean-up) ends
    ``work``; start it again.

    ``no_fork``: jobs run in the worker process itself (rq's ``SimpleWorker``): no fork per job, which is
    most of a bot turn's cost when many bot games are in flight (tournament runs use it).

    ``bots`` (store, bus, bot delay): run a bot runner (``workers/botrunner.py``) on a thread of this
    process as well; it plays the bot seats of every game, so the fold worker enqueues no bot jobs."""
    from rq import SimpleWorker, Worker

    if bots is not None:
        start_in_thread(*bots)

    wait_s = RECONNECT_FIRST_S
    while True:
        started = time.monotonic()
        try:
            queues = [Queue(name, connection=client) for name in (BOT_QUEUE, TOURNAMENT_QUEUE, ARCHIVE_QUEUE)]
            (SimpleWorker if no_fork else Worker)(queues, connection=client).work(logging_level=logging_level)
            return
        except REDIS_DOWN as exc:
            wait_s = _wait_out(exc, client, started, wait_s)
