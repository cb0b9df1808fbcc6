"""The bus's reads on a Redis Cluster: per node, one pipelined ``XREADGROUP`` per partition.

The inbox partitions hash to different slots, so the single ``XREADGROUP`` over all of a worker's partitions
that a standalone Redis answers is a ``CROSSSLOT`` error on a Cluster, even between slots of one node. Here
the partitions are grouped by the master that serves their slot (redis-py's slot map) and each node gets
one round trip: a pipeline of one non-blocking ``XREADGROUP`` per partition, on that node's own
connection, replies left raw as the standalone read leaves them. A ``MOVED`` reply (a slot moved since
the map was read) reloads the map and sends that read again; an ``ASK`` (a slot half migrated) sends it to
the importing node after ``ASKING``. A read refused with a redirection read nothing, and the replies of the
others are kept, so no entry is delivered and dropped.

Blocking: ``XREADGROUP ... BLOCK`` cannot wait on several slots at once, so a read that finds nothing
sleeps a short poll interval (``POLL_MS``, at most ``block_ms``) and returns empty; the caller reads again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import redis
from redis.exceptions import AskError, MovedError

from events import keys
from events.connection import raw_reads

POLL_MS = 20
"""How long an empty blocking read waits before it returns (the latency a command may wait on a Cluster)."""

REDIRECTIONS = 3
"""Map refreshes tried before a redirection is raised (a slot migrating twice in a row is rare)."""


class ClusterReads:
    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self._raw: dict[str, redis.Redis] = {}

    def _node_client(self, node: Any) -> redis.Redis:
        """The node's connections, with ``XREADGROUP``'s reply left raw (see ``CommandBus``)."""
        client = self._raw.get(node.name)
        if client is None:
            client = raw_reads(node.redis_connection.connection_pool)
            self._raw[node.name] = client
        return client

    def by_node(self, partitions: Sequence[int]) -> list[tuple[Any, list[int]]]:
        groups: dict[str, tuple[Any, list[int]]] = {}
        for p in partitions:
            node = self.cluster.get_node_from_key(keys.inbox(p))
            groups.setdefault(node.name, (node, []))[1].append(p)
        return list(groups.values())

    def read(
        self,
        partitions: Sequence[int],
        call_for: Callable[[int], tuple[Any, ...]],
        block_ms: int | None,
    ) -> list[Any]:
        """The raw replies of the per-partition reads; ``call_for(partition)`` builds each read."""
        replies: list[Any] = []
        todo = list(partitions)
        for _ in range(REDIRECTIONS + 1):
            redirected = []
            for node, ps in self.by_node(todo):
                pipe: Any = self._node_client(node).pipeline(transaction=False)
                for p in ps:
                    pipe.execute_command(*call_for(p))
                # The replies of the reads that ran are kept (their entries are now delivered to us);
                # only the redirected ones are sent again.
                for p, reply in zip(ps, pipe.execute(raise_on_error=False), strict=True):
                    if isinstance(reply, AskError):
                        replies.append(self._asking(reply, call_for(p)))
                    elif isinstance(reply, MovedError):
                        redirected.append(p)
                    elif isinstance(reply, Exception):
                        raise reply
                    else:
                        replies.append(reply)
            if not redirected:
                if block_ms and not any(replies):
                    time.sleep(min(block_ms, POLL_MS) / 1000)
                return replies
            self.cluster.nodes_manager.initialize()  # the slot map changed: read it again
            self._raw.clear()
            todo = redirected
        raise MovedError(f"partitions {todo} still redirected after {REDIRECTIONS} slot-map refreshes")

    def _asking(self, ask: AskError, call: tuple[Any, ...]) -> Any:
        """The read sent to the node importing the slot, preceded by ``ASKING`` (the slot is half migrated:
        the map stays as it is until the migration ends, so it is not reloaded)."""
        node = self.cluster.get_node(host=ask.host, port=ask.port)
        if node is None:
            self.cluster.nodes_manager.initialize()
            node = self.cluster.get_node(host=ask.host, port=ask.port)
        pipe: Any = self._node_client(node).pipeline(transaction=False)
        pipe.execute_command("ASKING")
        pipe.execute_command(*call)
        return pipe.execute()[1]
