"""Running a fold worker as a process: signals and the bot hook wired in, and a Redis outage outlived.

When Redis goes away (restarted by ``serve``, a failover, a network cut) or refuses writes (out of memory,
a full disk: ``workers/outage.py``) the worker does not exit: it drops what it had in hand (the commands
stay pending in the inbox, and their appends are idempotent), waits with a growing back-off, and starts
folding again with a fresh worker on the same process. The rq worker does the same around rq's loop.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import signal
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import redis
import structlog
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from rq import Queue

from events.bus import CommandBus
from events.store import EventStore, LoadedGame
from workers.abandoned import requeue_abandoned
from workers.botrunner import runners_alive, start_in_thread
from workers.fold import FoldWorker
from workers.jobs.account_ratings import RatingTrigger
from workers.jobs.archive_trigger import ARCHIVE_QUEUE, ArchiveTrigger
from workers.jobs.bots import BOT_QUEUE, SEARCH_QUEUE
from workers.jobs.clock_due import ClockTrigger, ClockWatcher
from workers.jobs.failures import TRANSIENT
from workers.jobs.schedule import make_scheduler
from workers.jobs.tournament import TOURNAMENT_QUEUE, TournamentTrigger
from workers.outage import REDIS_DOWN, Episode, is_outage

log = structlog.get_logger("runner")


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
    trigger = make_scheduler(queues, redis_url, bot_delay_s, bus.partitions, plugins)
    tournaments = TournamentTrigger(store.redis, queues, redis_url, bus.partitions, plugins)
    archive = ArchiveTrigger(store.redis, queues, redis_url, archive_dir, plugins)
    ratings = RatingTrigger(store.redis)  # accounts' ratings move when their rated game ends
    # a timeout at its deadline, a no-show's later turns at once; a table seat resigned or timed out to a bot:
    # the stand-in's turn
    clocks = ClockTrigger(store, bus, lambda g, loaded, left: trigger.ensure(g, loaded, stand_ins=left))

    runners = RunnersAlive(store.redis)

    def after_applied(game_id: str, loaded: LoadedGame) -> None:
        # A live bot runner plays the instant bots from the game's events (no job a move), never a search
        # bot's turn: that one is an rq job either way, spread over the rq workers.
        _isolated("bot_trigger", trigger.searching if runners() else trigger, game_id, loaded)
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
    """Fold with a fresh worker after each Redis outage or refusal until a stop is asked for."""
    folded, episode = 0, Episode("fold")

    def applied(game_id: str, loaded: LoadedGame) -> None:
        if episode.began is not None:  # a command landed: Redis takes writes again
            episode.ended()
        after_applied(game_id, loaded)

    while not life.stopping:
        started = time.monotonic()
        try:
            life.worker = FoldWorker(
                store.redis,
                store,
                bus,
                on_applied=applied,
                batch_size=batch_size,
                plain_transport=plain_transport,
            )
            if life.stopping:
                break
            folded += life.worker.run()
        except (redis.RedisError, OSError) as exc:
            if not is_outage(exc):
                raise
            if life.stopping:
                break
            _wait_out(episode.failed(exc, started), store.redis)
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


def _wait_out(wait_s: float, client: Any) -> None:
    """Drop the client's connections (a Cluster client also reads its slot map again, if any node answers: a
    replica may have taken a lost master's place), then wait ``wait_s``."""
    if isinstance(client, RedisCluster):
        client.disconnect_connection_pools()  # type: ignore[no-untyped-call]
        with contextlib.suppress(*REDIS_DOWN, RedisClusterException):
            client.nodes_manager.initialize()
    else:
        client.connection_pool.disconnect()
    time.sleep(wait_s)


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

    episode, quit_on = Episode("rq"), _QuitCause.install()
    dead: set[str] = set()  # this process's workers whose loops an outage ended: their jobs are handed back
    while True:
        started, worker = time.monotonic(), None
        try:
            names = (BOT_QUEUE, TOURNAMENT_QUEUE, ARCHIVE_QUEUE, SEARCH_QUEUE)  # in the order rq takes them
            queues = [Queue(name, connection=client) for name in names]
            requeue_abandoned(client, queues, dead)  # issue 42: else "started" until rq's clean-up, minutes
            dead.clear()
            worker = (SimpleWorker if no_fork else Worker)(queues, connection=client)
            _take_stops_for_sure(worker)
            quit_on.cause = None
            worker.work(logging_level=logging_level)
            if _stop_asked(worker) or quit_on.cause is None:
                return  # a stop asked for (SIGTERM), or rq quit on an error of its own: as rq would
            cause: BaseException = quit_on.cause
        except (redis.RedisError, OSError) as exc:
            if not is_outage(exc):
                raise
            cause = exc
        if worker is not None:  # rq's teardown stops at its first refused write, before this
            with contextlib.suppress(Exception):
                worker.unsubscribe()  # type: ignore[no-untyped-call]  # its pub/sub thread, else left reading a connection dropped below
            _stop_horse(worker)
            dead.add(worker.name)
            if _stop_asked(worker):  # a SIGTERM rq took, then Redis refused its teardown: still a stop
                return
        wait_s = episode.failed(cause, started)
        # rq's signal handlers stay installed after ``work``, and would ask Redis about a worker that is
        # gone: between two runs nothing is in hand, so a stop asked for now is taken at once.
        stop = _StopBetweenRuns.install()
        with contextlib.suppress(_Interrupted):
            _wait_out(wait_s, client)
        if stop.asked:
            return


STOP_LOOK_S = 20
"""The longest rq waits on its queues before it looks again at a stop asked for (rq waits its worker TTL less
15 s: 405 s by default)."""


def _take_stops_for_sure(worker: Any) -> None:
    """rq takes an idle SIGTERM by raising ``StopRequested`` from its handler, wherever the main thread is: a
    clean-clone ``make test`` saw it land in a finaliser (``Exception ignored in Pipeline.__del__``), lost, and
    the worker wait on its queues for ever after. The stop is also noted where rq's loop looks before each
    wait, and the wait is made short enough for a stop to be taken within ``STOP_LOOK_S``."""
    take = worker.request_stop

    def request_stop(signum: int, frame: FrameType | None) -> None:
        worker._stop_requested = True
        take(signum, frame)

    worker.request_stop = request_stop  # rq installs ``self.request_stop`` as the handler when it starts
    worker.worker_ttl = STOP_LOOK_S + 15


def _stop_asked(worker: Any) -> bool:
    """Whether rq took a SIGTERM / SIGINT: busy, it notes ``_stop_requested``; idle, it raises out of its loop
    and notes only the date (rq's private attributes, pinned by tests/integration/workers/test_pinned_rq.py)."""
    return bool(worker._stop_requested or worker._shutdown_requested_date is not None)


def _stop_horse(worker: Any) -> None:
    """A work-horse still running when its loop ended (the outage met the loop's heartbeat, not the job) is
    killed and reaped: its job is handed back (``workers/abandoned.py``), and two runs at once must not be."""
    if worker.horse_pid:
        with contextlib.suppress(OSError):
            worker.kill_horse(signal.SIGKILL)
            worker.wait_for_horse()


class _StopBetweenRuns:
    """SIGTERM / SIGINT while the rq worker waits between two runs of rq: noted, and the wait ends."""

    def __init__(self) -> None:
        self.asked = False

    @classmethod
    def install(cls) -> _StopBetweenRuns:
        stop = cls()

        def handle(signum: int, frame: FrameType | None) -> None:
            stop.asked = True
            raise _Interrupted

        signal.signal(signal.SIGTERM, handle)
        signal.signal(signal.SIGINT, handle)
        return stop


class _Interrupted(BaseException):
    """Raised out of the back-off's sleep by ``_StopBetweenRuns``: a ``BaseException``, as ``KeyboardInterrupt``
    is, so that no ``except Exception`` on the way (redis-py's retries) takes the stop for an error."""


class _QuitCause(logging.Filter):
    """rq's loop catches every error, logs "found an unhandled exception, quitting" with its traceback, and
    returns from ``work`` as if asked to stop: this filter on rq's logger keeps the error when it is a Redis
    outage or refusal (``run_rq_worker`` then waits and starts rq again, where rq would have exited) and
    drops that record (``Episode`` logs the stretch once, not a traceback a retry)."""

    def __init__(self) -> None:
        super().__init__()
        self.cause: BaseException | None = None

    @classmethod
    def install(cls) -> _QuitCause:
        quit_on = cls()
        logging.getLogger("rq.worker").addFilter(quit_on)
        return quit_on

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if error is None and "Redis connection timeout" in message:  # rq logs that one with no exception
            error = redis.TimeoutError(message)
        if error is None or not is_outage(error) or "quitting" not in message:
            return True
        self.cause = error
        return False
