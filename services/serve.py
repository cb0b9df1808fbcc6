"""``harbormaster serve``: embedded Redis if needed, fold workers, an rq worker and the gateway.

The gateway and the workers are child processes under a supervisor (``services/supervise.py``) that
restarts any that dies, and the embedded Redis on its data folder; it also runs the bot reconciler
(``workers/jobs/schedule.py``) at start and every few seconds. On exit the children get SIGTERM (a warm
stop) and the embedded Redis is shut down cleanly, flushing its append-only file.
"""

from __future__ import annotations

import signal
import sys
import time
import uuid
from types import FrameType

import structlog

from events.log_store import LogStore
from events.migrate import scope_all
from services import log_key
from services.archive import configured_bucket
from services.archive_reconcile import reconcile_archives
from services.bootstrap import Services, build, require_rq
from services.config import Settings
from services.discovery import ServeState, announce, withdraw
from services.game_creation import reconcile as reconcile_creations
from services.games import create_game
from services.home import home
from services.log_archive import archive_log
from services.players.account_sweep import sweep_nameless
from services.players.table_start import reconcile_tables
from services.redis_launcher import EmbeddedRedis, running_url
from services.supervise import Child, Supervisor
from services.tournament_reconcile import reconcile_running
from workers.jobs.schedule import BotScheduler, make_scheduler, reconcile

log = structlog.get_logger("serve")

DEMO_SEATS = {"manila": 4, "elcapitan": 4, "eic": 4}


def start_demo_games(services: Services, url: str, host: str, port: int) -> list[str]:
    """A live all-bot game of each kind, greedy against random, for people to watch; a kind whose demo game
    is still being played (a serve started again on the same data) keeps that one, so each start does not
    add three more."""
    live = services.store.list_games(live_only=True, limit=1000)
    started = []
    for key, game in sorted(services.store.games.items()):
        if any(game_id.startswith(f"demo-{key}-") for game_id in live):
            continue
        seats = max(game.min_seats, min(game.max_seats, DEMO_SEATS.get(key, 4)))
        bots = {seat: "greedy" if seat % 2 == 0 else "random" for seat in range(seats)}
        game_id, _ = create_game(
            services, key, seats, {}, game_id=f"demo-{key}-{uuid.uuid4().hex[:6]}", bots=bots, redis_url=url
        )
        log.info(
            "demo_game_started", game=key, game_id=game_id, watch=f"http://{host}:{port}/games/{game_id}"
        )
        started.append(game_id)
    return started


def _announce(host: str, port: int) -> None:
    """The one line a user needs, on stdout, plainly (the logs go to stderr)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "127.0.0.1") else "[::1]" if host == "::" else host
    sys.stdout.write(f"\nHarbormaster is up: open http://{shown}:{port}/ in a browser (Ctrl-C stops it)\n\n")
    sys.stdout.flush()


class Terminated(BaseException):
    """SIGTERM arrived (a service manager, ``docker stop``, Kubernetes): stop as Ctrl-C does.

    A ``BaseException``, as ``KeyboardInterrupt`` is: the handler raises it wherever the main thread is,
    often inside the periodic pass, and that pass, like the supervisor around it, isolates ``Exception``
    (one bad record must not stop the others). As an ``Exception`` it was logged as ``periodic_failed`` and
    ``serve`` went on running; a ``make test`` saw it not stop within 90 s of its SIGTERM."""


def _reconcile_all(services: Services, url: str, scheduler: BotScheduler, seen: dict[str, int]) -> None:
    """Games a killed creator left half-made (``services/game_creation.py``), lost bot turns, then
    tournaments whose round trigger was lost (a crash between a game's end and its round job), tables a start
    left half-done or whose time ran out (``services/players/table_start.py``), finished games whose archive
    job was never enqueued (``services/archive_reconcile.py``), account records with no
    name (once), then the log's copy beside the archives (``services/log_archive.py``)."""
    now = int(time.time() * 1000)
    reconcile_creations(services.redis, now)  # first: a game it lists is then in the bot reconciler's pass
    reconcile(services.store, scheduler, seen)
    reconcile_running(services, url)
    reconcile_tables(services, url, now)
    reconcile_archives(services, url, now)  # games whose archive hook was lost (issue 42)
    sweep_nameless(services.redis)
    folder = services.settings.archive_dir
    if folder is not None:
        try:
            archive_log(LogStore(services.redis), folder / "log", configured_bucket())
        except OSError as exc:  # a full or read-only disk: said, and tried again at the next pass
            log.error("log_archive_failed", error=str(exc))


def raise_terminated(signum: int, frame: FrameType | None) -> None:
    """``serve``'s SIGTERM handler."""
    raise Terminated


RECONCILE_EVERY_S = 3.0


def serve(
    settings: Settings, host: str, port: int, demo: bool, workers: int, bot_delay: float, rq_workers: int = 1
) -> int:
    """Run everything until interrupted (Ctrl-C or SIGTERM); returns the exit code.

    Either way the gateway and the workers are stopped first, warmly, and the embedded Redis last. A second
    serve (this user's, or on the same data folder or address) is refused before anything starts.
    """
    with home(settings.data_dir, host, port, own_redis=settings.redis_url is None):
        return _serve(settings, host, port, demo, workers, bot_delay, rq_workers)


def _serve(
    settings: Settings, host: str, port: int, demo: bool, workers: int, bot_delay: float, rq_workers: int
) -> int:
    previous = signal.signal(signal.SIGTERM, raise_terminated)
    # Ctrl-C stops serve even when it was started with SIGINT ignored (a background job of a script
    # inherits that, and Python then never raises KeyboardInterrupt).
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    server = None
    supervisor: Supervisor | None = None
    announced: ServeState | None = None
    try:
        url = settings.redis_url
        if url is None:  # the data folder's Redis: started here, or adopted from a serve that was killed
            server = EmbeddedRedis(settings.data_dir)
            left = running_url(settings.data_dir)
            url = server.adopt(left) if left else server.start()
        delay = bot_delay or (0.7 if demo else 0.0)
        # First: a Redis we cannot run on (a Cluster without RQ_REDIS_URL) is refused before any child starts.
        services = build(settings, url)
        rq = require_rq(services)
        log_key.load(settings)  # the log's signing key, made at first start: a bad key file stops serve here
        # Where the other verbs find this Redis, from any folder (services/discovery.py).
        announced = announce(url, gateway=f"http://{host}:{port}/", settings=settings)
        services.bus.ensure_groups()
        renamed = scope_all(services.redis)  # data of a version before command ids had senders
        if renamed:
            log.info("result_fields_scoped", renamed=renamed)
        scheduler = make_scheduler(rq, url, delay, settings.partitions, settings.game_plugins)
        _announce(host, port)
        quiet = settings.quiet_children()  # a bot move a second must not bury the address to open
        seen: dict[str, int] = {}  # the reconciler's memory: each live game's seq at its last pass
        children = [
            Child(name=f"fold-{n}", argv=["worker", "--bot-delay", str(delay)], env=quiet)
            for n in range(max(1, workers))
        ]
        children += [
            Child(name=f"rq-{n}", argv=["rq-worker", "--bot-delay", str(delay)], env=quiet)
            for n in range(max(1, rq_workers))
        ]
        children.append(Child(name="gateway", argv=["gateway", "--host", host, "--port", str(port)]))
        children.append(Child(name="sequencer", argv=["sequencer"], env=quiet))  # the log (docs/audit.md)
        supervisor = Supervisor(
            url,
            children,
            redis_server=server,
            periodic=lambda: _reconcile_all(services, url, scheduler, seen),
            every_s=RECONCILE_EVERY_S,
        )
        supervisor.tick()
        if demo:
            start_demo_games(services, url, host, port)
        log.info("gateway_starting", url=f"http://{host}:{port}/", redis=url)
        supervisor.run_forever()
    except Terminated:
        log.info("serve_stopping", signal="SIGTERM")
    except KeyboardInterrupt:
        log.info("serve_stopping", signal="SIGINT")
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the stop short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if announced is not None:  # first: no verb should take up a Redis that is about to stop
            withdraw(announced)
        if supervisor is not None:
            supervisor.stop()
        if server is not None:
            server.stop()
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)
    return 0
