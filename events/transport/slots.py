"""A Redis Cluster's slots, in pure functions: which node a call goes to, the URL of a node, and what a
refusal says. The Cluster forms of the fast implementations (``multiplexed_cluster.py``,
``pipelined_cluster.py``) route with these."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from redis.crc import key_slot

from events.connection import node_url as cluster_node_url
from events.connection import redirection, sent_again
from events.transport.resp import Call

SLOTS = 16384

Node = tuple[str, int]
"""A node's host and port."""

__all__ = ["SLOTS", "Node", "key_slot", "node_url", "owners_from_slots", "redirection", "seed_node",
           "sent_again", "slot_of"]  # fmt: skip


def node_url(url: str, node: Node) -> str:
    """``url`` (either Cluster form) with its host and port replaced by the node's, credentials and query
    kept; no database path (a Cluster has only database 0)."""
    parts = urlsplit(cluster_node_url(url))
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@{node[0]}:{node[1]}" if credentials else f"{node[0]}:{node[1]}"
    return urlunsplit((parts.scheme, netloc, "", parts.query, ""))


def seed_node(url: str) -> Node:
    parts = urlsplit(cluster_node_url(url))
    return (parts.hostname or "127.0.0.1", parts.port or 6379)


def owners_from_slots(reply: Sequence[Any], asked: Node) -> list[Node]:
    """Each slot's master from a raw ``CLUSTER SLOTS`` reply (``[start, end, [host, port, id], …]`` per
    range); an empty host means the node that was asked. A slot no range covers maps to ``("", 0)``."""
    owners: list[Node] = [("", 0)] * SLOTS
    for start, end, master, *_ in reply:
        host = master[0].decode() if isinstance(master[0], bytes) else str(master[0])
        node = (host if host and host != "?" else asked[0], int(master[1]))
        owners[int(start) : int(end) + 1] = [node] * (int(end) - int(start) + 1)
    return owners


def slot_of(call: Call) -> int:
    """The slot of a call's key: the first stream of an ``XREAD``, else the first argument."""
    name = str(call[0]).upper()
    at = 1
    if name in ("XREAD", "XREADGROUP"):
        at = next(i for i, arg in enumerate(call) if str(arg).upper() == "STREAMS") + 1
    key = call[at]
    return key_slot(key if isinstance(key, bytes) else str(key).encode())
