"""The fold worker's appender on a Redis Cluster: one connection per master, each game's script call
routed to the master of its slot.

The interface is ``ScriptPipeline``'s (``interface.Appender``: ``pack_appends``, ``send_packed``, ``receive``): calls are written at
once and their replies read later, in the order sent. A batch's calls are grouped by the master of their
slot (redis-py's slot map, read from ``CLUSTER SLOTS``) and each master gets one write on a connection of
its own; the replies are read back per master and put in the batch's order again.

A call the master did not run is sent again, alone, on a second connection to the node that should run
it, before the batch's replies are handed over: ``MOVED`` (the slot has moved) reloads the slot map and
goes to the node it names; ``ASK`` (the slot is half migrated and the game's keys are on the importing
node) goes there after ``ASKING``, the map left as it is; ``TRYAGAIN`` (a multi-key call while the game's
keys are split between the two nodes of a migration) waits a moment and starts over from the map;
``NOSCRIPT`` (a node that never had the script, as a freshly promoted replica) loads it there. Sending
again is safe: a refused call ran nothing, and the append script checks each command's id and the
game's position anyway.

Order within a game: a worker sends batch k+1 before it reads batch k's replies, each game's call to the
node the map names. If the map changes while batches are in flight, a later batch could reach the new
master before a call of an earlier one is sent there again; so after a reload, the batches in flight are
settled (their replies read and kept) before anything new is sent.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
import redis
import structlog
from redis.cluster import RedisCluster

from events.connection import node_client
from events.replica_ack import ReplicaAck
from events.transport.interface import Appender
from events.transport.pipelined import Pipelined, ScriptPipeline
from events.transport.plain import PlainAppender
from events.transport.resp import ASKING, pack_script_call
from events.transport.slots import Node, key_slot, redirection, sent_again

log = structlog.get_logger("fold")

REDIRECTS_S = 1.5
"""How long one batch's refused calls are sent again before the refusal goes back to the worker (which
decides the commands again); kept under a partition lease's time to live, 3 s."""
TRY_AGAIN_FIRST_S = 0.005
TRY_AGAIN_MOST_S = 0.1


class SentBatch(msgspec.Struct):
    """A batch written to the masters, its replies not read yet."""

    calls: list[tuple[int, bytes]]
    """``(slot, packed call)`` in the worker's order."""
    nodes: list[Node]
    """The node each call went to."""


class ClusterScriptPipeline:
    """``ScriptPipeline`` on a Redis Cluster: one connection per master, calls routed by slot."""

    def __init__(self, cluster: RedisCluster, script: str, replica_ack: ReplicaAck | None = None) -> None:
        self.cluster = cluster
        self.script = script
        self.replica_ack = replica_ack
        """Sent behind each write to a master, checked with its replies (``Pipelined``)."""
        self.sha: str = cluster.script_load(script)  # on every master
        self.outstanding = 0
        self._links: dict[Node, Pipelined] = {}
        self._resend_links: dict[Node, Pipelined] = {}
        self._sent: deque[SentBatch] = deque()
        self._settled: deque[list[Any]] = deque()
        """Replies read before the worker asked for them (batches settled after a slot-map reload)."""
        self._settle_before_send = False

    # --- the interface of ScriptPipeline (interface.Appender) -----------------------------------------------------------------

    def pack_appends(self, calls: Iterable[tuple[tuple[str, ...], Sequence[Any]]]) -> list[tuple[int, bytes]]:
        """Each ``(keys, args)`` call as its slot and protocol bytes (routed when sent)."""
        return [(key_slot(keys[0].encode()), pack_script_call(self.sha, keys, args)) for keys, args in calls]

    def send_packed(self, payload: list[tuple[int, bytes]], count: int) -> None:
        """Write the calls, each to the master of its slot, without waiting for their replies."""
        if not count:
            return
        if self._settle_before_send:
            self._settle_in_flight()
        nodes = [self._owner(slot) for slot, _ in payload]
        by_node: dict[Node, list[bytes]] = {}
        for node, (_, packed) in zip(nodes, payload, strict=True):
            by_node.setdefault(node, []).append(packed)
        try:
            for node, calls in by_node.items():
                self._link(node, self._links).send_packed(b"".join(calls), len(calls))
        except Exception:
            self.close()
            raise
        self._sent.append(SentBatch(calls=payload, nodes=nodes))
        self.outstanding += count

    def receive(self, count: int) -> list[Any]:
        """The next batch's ``count`` replies, in the order sent, refused calls sent again where they belong;
        an error reply comes back as the exception."""
        replies = self._settled.popleft() if self._settled else self._read(self._sent.popleft())
        if len(replies) != count:
            raise RuntimeError(f"asked for {count} replies of a batch of {len(replies)}")
        self.outstanding -= count
        return replies

    def close(self) -> None:
        """Drop every connection (replies still outstanding on them are lost with them)."""
        for link in (*self._links.values(), *self._resend_links.values()):
            link.close()
        self._links.clear()
        self._resend_links.clear()
        self._sent.clear()
        self._settled.clear()
        self.outstanding = 0

    # --- reading and sending again ---------------------------------------------------------------------

    def _read(self, batch: SentBatch) -> list[Any]:
        counts = Counter(batch.nodes)
        try:
            from_node = {node: iter(self._link(node, self._links).receive(n)) for node, n in counts.items()}
        except Exception:
            self.close()
            raise
        replies = [next(from_node[node]) for node in batch.nodes]
        deadline = time.monotonic() + REDIRECTS_S
        for n, reply in enumerate(replies):
            if _refusal(reply):
                slot, packed = batch.calls[n]
                replies[n] = self._send_again(slot, packed, reply, batch.nodes[n], deadline)
        return replies

    def _send_again(self, slot: int, packed: bytes, reply: Exception, node: Node, deadline: float) -> Any:
        """Send one call that ``node`` refused where the refusal says, until it runs or the deadline passes."""
        wait_s, asking = TRY_AGAIN_FIRST_S, False
        while True:
            kind, named = redirection(str(reply))  # NOSCRIPT too: a NoScriptError's message starts with it
            log.info("append_sent_again", slot=slot, refusal=kind, node=f"{node[0]}:{node[1]}")
            if kind in ("MOVED", "ASK"):
                # an empty host: the one that answered
                node, asking = (named[0] or node[0], named[1]), kind == "ASK"
                if not asking and self._owner(slot) != node:  # MOVED: the slot map is stale
                    self._reload_map()
            elif kind == "NOSCRIPT":
                self._load_script(node)  # then the same node again, as asked before
            else:  # TRYAGAIN, CLUSTERDOWN: wait, then start over from the map
                if time.monotonic() + wait_s > deadline:
                    return reply
                time.sleep(wait_s)
                wait_s = min(TRY_AGAIN_MOST_S, wait_s * 2)
                if kind == "CLUSTERDOWN":
                    self._reload_map()
                node, asking = self._owner(slot), False
            reply = self._send_alone(node, packed, asking)
            if not _refusal(reply) or time.monotonic() > deadline:
                return reply

    def _send_alone(self, node: Node, packed: bytes, asking: bool) -> Any:
        """One call on the node's second connection (the first may hold a later batch's replies)."""
        link = self._link(node, self._resend_links)
        link.send_packed(ASKING + packed if asking else packed, 1 + asking)
        return link.receive(1 + asking)[-1]  # the call's reply, behind ASKING's if asked

    def _settle_in_flight(self) -> None:
        """Read every batch in flight now (kept for ``receive``), so nothing new overtakes a call of theirs
        that has to be sent again to a node the new map names."""
        self._settle_before_send = False
        while self._sent:
            self._settled.append(self._read(self._sent.popleft()))

    # --- the slot map and the nodes ----------------------------------------------------------------------

    def _owner(self, slot: int) -> Node:
        node = self.cluster.nodes_manager.get_node_from_slot(slot)
        return (node.host, int(node.port))

    def _reload_map(self) -> None:
        self.cluster.nodes_manager.initialize()
        if self._sent:
            self._settle_before_send = True

    def _load_script(self, node: Node) -> None:
        client = self._client(node)
        try:
            client.script_load(self.script)
        finally:
            client.close()

    def _link(self, node: Node, links: dict[Node, Pipelined]) -> Pipelined:
        """The node's connection in ``links`` (``_links`` or ``_resend_links``), opened if need be."""
        link = links.get(node)
        if link is None:
            link = links[node] = Pipelined(self._client(node), self.replica_ack)
        return link

    def _client(self, node: Node) -> redis.Redis:
        """A plain client of one node, with the Cluster client's credentials."""
        return node_client(node, self.cluster)


def _refusal(reply: Any) -> bool:
    """Whether the reply says the call did not run and should be sent elsewhere, or again."""
    return isinstance(reply, redis.exceptions.NoScriptError) or (
        isinstance(reply, redis.ResponseError) and sent_again(str(reply))
    )


def appender_for(
    client: Any, script: str, replica_ack: ReplicaAck | None = None, plain: bool = False
) -> Appender:
    """The fold worker's appender for the client: ``ScriptPipeline`` on a standalone Redis, routed by slot on
    a Cluster, or with ``plain`` redis-py's own (``plain.PlainAppender``, either kind of client); with a
    replica acknowledgement, each write to a master is confirmed by its replicas."""
    if plain:
        return PlainAppender(client, script, replica_ack)
    if isinstance(client, RedisCluster):
        return ClusterScriptPipeline(client, script, replica_ack)
    return ScriptPipeline(client, script, replica_ack)
