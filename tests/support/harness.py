"""Running the real pieces for gateway tests: uvicorn in a thread, fold worker and bot player threads."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import msgspec
import uvicorn

from events import keys
from services.bootstrap import Services
from services.config import Limits
from services.gateway.app import create_app
from services.gateway.server import uvicorn_options
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.bots import moves_at

UNLIMITED = Limits(
    sockets_per_address=0,
    commands_per_token=0,
    commands_per_address=0,
    frames_per_socket=0,
    socket_opens_per_address=0,
    reads_per_address=0,
)
"""Tests play from one address much faster than any person; the limits' own tests set them."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerThread:
    """A uvicorn server running the gateway app in a background thread."""

    def __init__(self, services: Services, url: str, **app_options: Any) -> None:
        self.worker: WorkerThread | None = None
        """The fold worker started beside it (``running_stack``), if any."""
        self.port = free_port()
        limits = app_options.setdefault("limits", UNLIMITED)
        app = self.app = create_app(services, redis_url=url, **app_options)
        config = uvicorn.Config(  # as ``harbormaster gateway`` runs it
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            **uvicorn_options(limits, services.settings.ws_compression),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("gateway did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


class WorkerThread:
    """The real fold worker in a thread."""

    def __init__(self, url: str, partitions: int = 8, plain_transport: bool = False) -> None:
        self.services = services_for(url, partitions=partitions)
        self.worker = FoldWorker(
            self.services.redis,
            self.services.store,
            self.services.bus,
            block_ms=20,
            plain_transport=plain_transport,
        )
        self.thread = threading.Thread(target=self.worker.run, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.worker.request_stop()
        self.thread.join(timeout=15)


class BotThread:
    """Plays the bot seats of every live game, as the rq bot job would (same ``moves_at``)."""

    def __init__(self, url: str, delay_s: float = 0.05, partitions: int = 8) -> None:
        self.services = services_for(url, partitions=partitions)
        self.delay_s = delay_s
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        store, bus = self.services.store, self.services.bus
        moved_at: dict[str, int] = {}
        """The position each game's bots last moved at: once per position, as the rq job runs once per
        applied event (with no delay, sending the same moves again until they landed flooded the worker
        with duplicates, each of which sends the rest of its batch back to be decided again)."""
        while not self.stopping.wait(self.delay_s):
            for raw in self.services.redis.zrange(keys.LIVE_GAMES, 0, -1):
                game_id = raw.decode()
                if not store.meta(game_id).bots:
                    continue
                loaded = store.load(game_id)
                if moved_at.get(game_id) == loaded.seq:
                    continue
                moved_at[game_id] = loaded.seq
                moves = moves_at(loaded)
                bus.submit_many(bus.message(game_id, s, c, cid, origin="bot") for s, c, cid in moves)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=15)


@contextmanager
def running_stack(
    url: str,
    partitions: int = 8,
    bot_delay_s: float = 0.05,
    admin_token: str | None = None,
    settings: Mapping[str, Any] | None = None,
    on_applied: Callable[[Any], Any] | None = None,
    **app_options: Any,
) -> Iterator[ServerThread]:
    """Gateway + fold worker + bot player on the Redis at ``url``, stopped afterwards. ``settings``: fields of
    the gateway's ``Settings`` to change; ``on_applied``: made from the worker's Redis client, the fold
    worker's hook (as ``workers/runner.py`` wires the rating hook in production)."""
    services = services_for(url, partitions=partitions)
    changes = {**(settings or {}), **({"admin_token": admin_token} if admin_token is not None else {})}
    if changes:
        services.settings = msgspec.structs.replace(services.settings, **changes)
    server = ServerThread(services, url, **app_options)
    worker = server.worker = WorkerThread(url, partitions, services.settings.transport == "plain")
    if on_applied is not None:
        worker.worker.on_applied = on_applied(worker.services.redis)
    bots = BotThread(url, bot_delay_s, partitions)
    worker.start()
    bots.start()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        bots.stop()
        worker.stop()
