"""The one place that builds Redis clients, the event store and the command bus."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import redis

from domain import Game, games_with_plugins
from events.bus import CommandBus
from events.replica_ack import check_supported
from events.store import EventStore
from services import cluster
from services.config import Settings


class ClusterNotSupported(Exception):
    """``REDIS_URL`` names a node of a Redis Cluster, which this component cannot run on yet."""


CLUSTER_REFUSAL = (
    "REDIS_URL names a node of a Redis Cluster, on which this component cannot run yet "
    "(deploy/CLUSTER.md says what runs on one)"
)


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
        return redis.Redis.from_url(settings.rq_redis_url, health_check_interval=30)
    return None if cluster.is_cluster_client(data) else data


def connect(url: str) -> Any:
    """A client that returns bytes (our codecs decode them): ``RedisCluster`` on a Cluster (see
    ``services/cluster.py`` for how one is recognised)."""
    return cluster.connect(url)


def require_standalone(client: Any) -> None:
    """Refuse a Redis Cluster before anything is written, for the components that cannot run on one yet.

    On a Cluster, the first command that spans hash slots (the bus reads all its inbox partitions in one
    ``XREADGROUP``) fails mid-way with ``CROSSSLOT`` or ``MOVED``; one clear error at the start is better.
    A server that will not say (``INFO`` renamed away) is taken to be standalone.
    """
    if cluster.is_cluster_client(client) or (
        isinstance(client, redis.Redis) and cluster.cluster_enabled(client)
    ):
        raise ClusterNotSupported(CLUSTER_REFUSAL)


def load_games(settings: Settings) -> dict[str, Game[Any, Any, Any, Any]]:
    """``domain.GAMES`` plus the plugin games named in the settings."""
    return games_with_plugins(settings.game_plugins)


def build(
    settings: Settings,
    url: str,
    games: Mapping[str, Game[Any, Any, Any, Any]] | None = None,
    on_cluster: bool = False,
) -> Services:
    """The services on ``url``; unless the caller works on a Cluster (``on_cluster``), a Cluster is refused."""
    client = connect(url)
    if not on_cluster:
        require_standalone(client)
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
