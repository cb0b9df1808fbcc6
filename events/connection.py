"""Telling a Redis Cluster from a standalone Redis, and the client for each (in ``events``, below the
workers: the rq jobs, which get only a URL, connect with it too).

``REDIS_URL`` names a Cluster either explicitly, ``redis+cluster://host:port``, or as a plain ``redis://``
URL of any Cluster node, recognised at start by ``INFO cluster`` (``cluster_enabled:1``). Either way the
process gets redis-py's ``RedisCluster`` (it learns the other nodes and the slot map from the one named,
and follows ``MOVED``/``ASK``); a standalone Redis gets ``redis.Redis`` as before.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
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
    client = redis.Redis.from_url(url)
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
