"""Every Redis client of ours is built here (issue 46, item 3: there was no composition root), and here a
Redis Cluster is told from a standalone Redis.

``services/bootstrap.py`` is the composition root: it chooses which of these a process gets (its game-data
client, rq's, the gateway's asyncio clients). The layers below the services build theirs from here too,
since they cannot import ``services``: the rq jobs (which get only a URL), the fast links' own connections,
per-node clients across a Cluster. ``tests/unit/contract/test_clients_in_one_place.py`` holds every other
module of ours to it.

``REDIS_URL`` names a Cluster either explicitly, ``redis+cluster://host:port``, or as a plain ``redis://``
URL of any Cluster node, recognised at start by ``INFO cluster`` (``cluster_enabled:1``). Either way the
process gets redis-py's ``RedisCluster`` (it learns the other nodes and the slot map from the one named,
and follows ``MOVED``/``ASK``); a standalone Redis gets ``redis.Redis`` as before.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

CLUSTER_SCHEME = "redis+cluster://"


def node_url(url: str) -> str:
    """The URL as redis-py's plain client reads it (the cluster scheme becomes ``redis://``)."""
    if url.startswith(CLUSTER_SCHEME):
        return "redis://" + url[len(CLUSTER_SCHEME) :]
    return url


def cluster_enabled(client: redis.Redis) -> bool:
    """Whether the server says it is a Cluster node; one that will not say (``INFO`` renamed away) is not."""
    try:
        return bool(client.info("cluster").get("cluster_enabled"))
    except redis.ResponseError:
        return False


def is_cluster(url: str) -> bool:
    """Whether ``url`` names a Cluster: by its scheme, else by asking the node."""
    if url.startswith(CLUSTER_SCHEME):
        return True
    if url.startswith("unix://"):
        return False  # a Cluster's nodes talk TCP to each other; ours never listen on a socket only
    client = probe(url)
    try:
        return cluster_enabled(client)
    finally:
        client.close()


def connect(url: str) -> Any:
    """A client that returns bytes (our codecs decode them): ``RedisCluster`` on a Cluster."""
    if is_cluster(url):
        # A Cluster has one database; a /N path in the URL would be refused by the nodes' SELECT.
        parts = urlsplit(node_url(url))
        return RedisCluster.from_url(
            urlunsplit((parts.scheme, parts.netloc, "", "", "")), decode_responses=False
        )
    return redis.Redis.from_url(url, decode_responses=False, health_check_interval=30)


def probe(url: str, connect_timeout: float | None = None, timeout: float | None = None) -> redis.Redis:
    """A short-lived client to ask one server something (is it up, a Cluster, its port); the caller closes it."""
    return redis.Redis.from_url(url, socket_connect_timeout=connect_timeout, socket_timeout=timeout)


def local_probe(port: int, connect_timeout: float | None = None, timeout: float | None = None) -> redis.Redis:
    """``probe`` of a server on this machine's loopback (the embedded Redis, by the port it listens on)."""
    return probe(f"redis://127.0.0.1:{port}", connect_timeout, timeout)


def rq_client(url: str) -> redis.Redis:
    """rq's own Redis (a standalone one: rq cannot run on a Cluster); replies as rq expects them."""
    return redis.Redis.from_url(url, health_check_interval=30)


def raw_reads(pool: Any) -> redis.Redis:
    """A client on an existing client's connections (``pool``) whose ``XREADGROUP`` reply is left as Redis
    sends it (``events/bus.py``: turning every entry into a dict cost the worker more than reading it)."""
    client = redis.Redis(connection_pool=pool)
    client.response_callbacks.pop("XREADGROUP", None)
    return client


def node_client(node: tuple[str, int], like: Any) -> redis.Redis:
    """A plain client of one Cluster node, with the credentials of the Cluster client ``like``."""
    kwargs = like.nodes_manager.connection_kwargs
    return redis.Redis(
        host=node[0],
        port=node[1],
        username=kwargs.get("username"),
        password=kwargs.get("password"),
        socket_connect_timeout=kwargs.get("socket_connect_timeout") or 5,
        socket_keepalive=True,
    )


def async_client(url: str, on_cluster: bool = False, **options: Any) -> Any:
    """An asyncio client returning bytes, like the synchronous ones: redis-py's asyncio ``RedisCluster`` when
    ``on_cluster`` (``url`` then names one node), else ``redis.asyncio.Redis``; ``options`` are redis-py's."""
    if on_cluster:
        return AsyncRedisCluster.from_url(url, decode_responses=False, **options)
    return aioredis.Redis.from_url(url, decode_responses=False, **options)


def is_cluster_client(client: Any) -> bool:
    return isinstance(client, RedisCluster)


SENT_AGAIN = frozenset(("MOVED", "ASK", "TRYAGAIN", "CLUSTERDOWN"))
"""A Cluster node's refusals of a call it did not run, to be sent elsewhere (``MOVED``, ``ASK``) or again."""


def sent_again(message: str) -> bool:
    """Whether an error reply's message is one of ``SENT_AGAIN``."""
    return message.split(" ", 1)[0] in SENT_AGAIN


def redirection(message: str) -> tuple[str, tuple[str, int]]:
    """An error reply's kind and, for ``MOVED``/``ASK`` (``MOVED <slot> <host>:<port>``), the node it names
    (``("", 0)`` otherwise)."""
    words = message.split(" ")
    if words[0] in ("MOVED", "ASK") and len(words) >= 3:
        host, _, port = words[2].rpartition(":")
        return words[0], (host, int(port))
    return words[0], ("", 0)
