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
    "REDIS_URL names a node of a Redis Cluster; on a Cluster only the verbs new (without bots), log, "
    "export and games work so far, and the fold worker and the gateway: serve, rq and tournaments need a "
    "standalone Redis (deploy/CLUSTER.md says what is missing)"
)


class Services(msgspec.Struct, kw_only=True):
    redis: Any
    store: EventStore
    bus: CommandBus
    settings: Settings


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
    return Services(redis=client, store=store, bus=bus, settings=settings)
