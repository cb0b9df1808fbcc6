"""The one place that builds Redis clients, the event store and the command bus."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import redis

from domain import Game, games_with_plugins
from events.bus import CommandBus
from events.store import EventStore
from services.config import Settings


class ClusterNotSupported(Exception):
    """``REDIS_URL`` names a node of a Redis Cluster, which Harbormaster cannot run on yet."""


CLUSTER_REFUSAL = (
    "REDIS_URL names a node of a Redis Cluster; Harbormaster runs on a standalone Redis only for now "
    "(its keys are laid out for a Cluster, but its clients, the command bus's reads, the fold worker's "
    "connection and rq are not: deploy/CLUSTER.md says what is missing)"
)


class Services(msgspec.Struct, kw_only=True):
    redis: Any
    store: EventStore
    bus: CommandBus
    settings: Settings


def connect(url: str) -> redis.Redis:
    """A client that returns bytes (our codecs decode them)."""
    return redis.Redis.from_url(url, decode_responses=False, health_check_interval=30)


def require_standalone(client: redis.Redis) -> None:
    """Refuse a Redis Cluster node before anything is written.

    On a Cluster, the first command that spans hash slots (the bus reads all its inbox partitions in one
    ``XREADGROUP``) fails mid-way with ``CROSSSLOT`` or ``MOVED``; one clear error at the start is better.
    A server that will not say (``INFO`` renamed away) is taken to be standalone.
    """
    try:
        cluster = client.info("cluster")
    except redis.ResponseError:
        return
    if cluster.get("cluster_enabled"):
        raise ClusterNotSupported(CLUSTER_REFUSAL)


def load_games(settings: Settings) -> dict[str, Game[Any, Any, Any, Any]]:
    """``domain.GAMES`` plus the plugin games named in the settings."""
    return games_with_plugins(settings.game_plugins)


def build(
    settings: Settings, url: str, games: Mapping[str, Game[Any, Any, Any, Any]] | None = None
) -> Services:
    client = connect(url)
    require_standalone(client)
    store = EventStore(
        client, games if games is not None else load_games(settings), snapshot_every=settings.snapshot_every
    )
    bus = CommandBus(client, partitions=settings.partitions)
    return Services(redis=client, store=store, bus=bus, settings=settings)
