"""``harbormaster serve``: embedded Redis if needed, fold workers, an rq worker and the gateway.

Worker processes are children; on exit they get SIGTERM (a warm stop) and the embedded Redis is shut
down cleanly, flushing its append-only file.
"""

from __future__ import annotations

import subprocess
import uuid

import structlog
import uvicorn

from services.bootstrap import Services, build
from services.cli import spawn
from services.config import Settings
from services.games import create_game
from services.redis_launcher import EmbeddedRedis, running_url

log = structlog.get_logger("serve")

DEMO_SEATS = {"manila": 4, "elcapitan": 4, "eic": 4}


def start_demo_games(services: Services, url: str, host: str, port: int) -> list[str]:
    """A live all-bot game of each kind, greedy against random, for people to watch."""
    started = []
    for key, game in sorted(services.store.games.items()):
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


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        child.terminate()
    for child in children:
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()


def serve(settings: Settings, host: str, port: int, demo: bool, workers: int, bot_delay: float) -> int:
    """Run everything until interrupted; returns the exit code."""
    server = None
    url = settings.redis_url or running_url(settings.data_dir)
    if url is None:
        server = EmbeddedRedis(settings.data_dir)
        url = server.start()
    delay = bot_delay or (0.7 if demo else 0.0)
    children: list[subprocess.Popen[bytes]] = []
    try:
        services = build(settings, url)  # first: a Redis we cannot run on is refused before any child starts
        children = [spawn(["worker", "--bot-delay", str(delay)], url) for _ in range(max(1, workers))]
        children.append(spawn(["rq-worker"], url))
        services.bus.ensure_groups()
        if demo:
            start_demo_games(services, url, host, port)
        from services.gateway.app import create_app

        log.info("gateway_starting", url=f"http://{host}:{port}/", redis=url)
        uvicorn.run(create_app(services, redis_url=url), host=host, port=port, log_level="warning")
    finally:
        _stop(children)
        if server is not None:
            server.stop()
    return 0
