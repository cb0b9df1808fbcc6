"""The composition root: a process's services, its Redis client for the game data, rq's Redis, the event
store and the command bus.

Every process of ours gets its game-data client here (``connect``: standalone or Cluster, as
``events/connection.py`` tells them apart) and rq's (``rq_client``); the gateway's asyncio clients are made
from the same URL when its app starts (``services/gateway/context.py``). Every client is built by
``events/connection.py`` (the layers below the services use it too: a job gets a URL, the fast links open
their own connections), and no other module of ours builds one (``tests/unit/contract/test_clients_in_one_place.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import redis

from domain import Game, games_with_plugins
from events import connection
from events.bus import CommandBus
from events.replica_ack import check_supported
from events.store import EventStore
from services import cluster
from services.config import Settings
from workers.jobs import archive_trigger as archive_jobs


class ClusterNotSupported(Exception):
    """rq has no standalone Redis to run on: ``REDIS_URL`` names a Cluster and ``RQ_REDIS_URL`` is missing,
    or ``RQ_REDIS_URL`` names a Cluster itself. Everything else of ours runs on a Cluster."""


RQ_MISSING = (
    "REDIS_URL names a Redis Cluster, on which rq cannot run: set RQ_REDIS_URL to a standalone Redis for "
    "the rq queues (bot turns, tournament rounds, archives)"
)
RQ_ON_CLUSTER = "RQ_REDIS_URL names a Redis Cluster: rq needs a standalone Redis (deploy/CLUSTER.md)"


class Services(msgspec.Struct, kw_only=True):
    redis: Any
    store: EventStore
    bus: CommandBus
    settings: Settings
    rq: redis.Redis | None = None
    """The rq queues' Redis: ``RQ_REDIS_URL``'s, else ``redis`` itself; ``None`` on a Cluster without
    ``RQ_REDIS_URL`` (``require_rq`` refuses then)."""


def require_rq(services: Services) -> redis.Redis:
    """The rq queues' Redis, or the one-line refusal naming ``RQ_REDIS_URL``."""
    if services.rq is None:
        raise ClusterNotSupported(RQ_MISSING)
    client: redis.Redis = services.rq
    return client


def rq_client(settings: Settings, data: Any) -> redis.Redis | None:
    """rq's Redis: ``RQ_REDIS_URL`` (refused if it is a Cluster), else the data Redis unless it is a Cluster."""
    if settings.rq_redis_url:
        if cluster.is_cluster(settings.rq_redis_url):
            raise ClusterNotSupported(RQ_ON_CLUSTER)
        return connection.rq_client(settings.rq_redis_url)
    return None if cluster.is_cluster_client(data) else data


def connect(url: str) -> Any:
    """A client that returns bytes (our codecs decode them): ``RedisCluster`` on a Cluster (see
    ``services/cluster.py`` for how one is recognised)."""
    return cluster.connect(url)


def load_games(settings: Settings) -> dict[str, Game[Any, Any, Any, Any]]:
    """``domain.GAMES`` plus the plugin games named in the settings."""
    return games_with_plugins(settings.game_plugins)


def build(
    settings: Settings,
    url: str,
    games: Mapping[str, Game[Any, Any, Any, Any]] | None = None,
) -> Services:
    """The services on ``url``, a standalone Redis or any node of a Cluster (rq's Redis: ``rq_client``)."""
    client = connect(url)
    archive_jobs.set_trim(settings.archive_trim)  # for the trims this process's jobs make
    masters = (
        [client.get_redis_connection(node) for node in client.get_primaries()]
        if cluster.is_cluster_client(client)
        else [client]
    )
    check_supported(
        settings.replica_ack, masters
    )  # WAITAOF on a Redis older than 7.2: refused here, said why
    store = EventStore(
        client,
        games if games is not None else load_games(settings),
        snapshot_every=settings.snapshot_every,
        replica_ack=settings.replica_ack,
    )
    bus = CommandBus(client, partitions=settings.partitions)
    return Services(redis=client, store=store, bus=bus, settings=settings, rq=rq_client(settings, client))
