"""The gateway's link on a Redis Cluster: a ``Multiplexed`` per master, each call sent to the master of its
key's slot.

The interface is ``Multiplexed``'s (``interface.Link``), so the gateway's hot paths do not know which one
they hold. A ``calls`` batch is split by the master that serves each call's slot (``SlotMap``, read from
``CLUSTER SLOTS``), every master gets its part at once on its own multiplexed connection, and the replies are
put back in the batch's order. ``each`` hands back every call's reply or error in its place, so one master
that is down or refuses does not cost the replies of the others (the hub's reads of every node).

A call a master did not run is sent again where its refusal says, until it runs or ``REDIRECTS_S`` passes:
``MOVED`` (the slot moved: the map is read again, once for all the calls that saw it) goes to the node it
names; ``ASK`` (the slot is half migrated and the key already on the importing node) goes there after
``ASKING``, the map left as it is; ``TRYAGAIN`` and ``CLUSTERDOWN`` (a multi-key call during a migration, a
failover under way) wait a moment and start over from a fresh map. Sending again is safe: a refused call
ran nothing, and the gateway's calls are reads or inbox appends the fold worker de-duplicates by command id.
A lost connection is not sent again (the call may have run): it fails with ``ConnectionError``, as on one
Redis, and the map is read again so that the next call finds a promoted replica.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import hiredis
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from events.transport.multiplexed import Calls, Multiplexed
from events.transport.resp import Call
from events.transport.slots import (
    Node,
    node_url,
    owners_from_slots,
    redirection,
    seed_node,
    sent_again,
    slot_of,
)

log = structlog.get_logger("transport")

REDIRECTS_S = 2.0
"""How long a refused call is sent again before its refusal is the answer."""
TRY_AGAIN_FIRST_S = 0.005
TRY_AGAIN_MOST_S = 0.1
NODE_TIMEOUT_S = 10.0
"""How long a master may take to answer its part of a batch (none blocks) before its connection is dropped."""


class SlotMap:
    """Which master serves each slot, as the Cluster last said; read again after a ``MOVED`` or a lost node."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.owners: list[Node] = []
        self.known: list[Node] = [seed_node(url)]
        """Nodes to ask for the map: the seed, then every master seen since."""
        self.version = 0
        self._loading = asyncio.Lock()

    async def owner(self, slot: int) -> Node:
        if not self.owners:
            await self.reload(self.version)
        return self.owners[slot]

    async def reload(self, seen: int) -> None:
        """Read the map again, unless it was read since version ``seen`` (many calls refused at once read
        it once)."""
        async with self._loading:
            if self.version != seen and self.owners:
                return
            errors = []
            for node in list(dict.fromkeys(self.known)):
                link = Multiplexed(node_url(self.url, node))
                try:
                    reply = await asyncio.wait_for(link.call("CLUSTER", "SLOTS"), NODE_TIMEOUT_S)
                except Exception as exc:  # that node is down: ask the next one
                    errors.append(f"{node[0]}:{node[1]}: {exc}")
                    continue
                finally:
                    await link.close()
                self.owners = owners_from_slots(reply, node)
                self.known = [*dict.fromkeys([*self.known, *(o for o in self.owners if o[1])])]
                self.version += 1
                return
            raise RedisConnectionError(f"no Cluster node gave its slot map: {'; '.join(errors)}")


class ClusterMultiplexed(Calls):
    """``Multiplexed`` on a Redis Cluster: one multiplexed connection per master, each call routed by its slot."""

    def __init__(self, url: str, slots: SlotMap) -> None:
        self.url = url
        self.slots = slots
        self._links: dict[Node, Multiplexed] = {}
        self.sent_again: dict[str, int] = {}
        """Calls sent again, by the refusal's kind (``MOVED``, ``ASK``, ``TRYAGAIN``, ``CLUSTERDOWN``)."""

    async def each(self, calls: Sequence[Call]) -> list[Any]:
        """Every call's reply, or its error (``ResponseError``, ``ConnectionError``) in its place."""
        version = self.slots.version
        slots = [slot_of(call) for call in calls]
        nodes = [await self.slots.owner(slot) for slot in slots]
        by_node: dict[Node, list[Call]] = {}
        for node, call in zip(nodes, calls, strict=True):
            by_node.setdefault(node, []).append(call)
        parts = await asyncio.gather(*(self._send(node, part) for node, part in by_node.items()))
        from_node = {node: iter(part) for node, part in zip(by_node, parts, strict=True)}
        replies = [next(from_node[node]) for node in nodes]  # each node's replies, back in the batch's order
        if any(isinstance(r, RedisConnectionError) for r in replies):
            await self._reload_quietly(version)  # a master down: the next call may find its replica promoted
        deadline = time.monotonic() + REDIRECTS_S
        for n, reply in enumerate(replies):
            if _refusal(reply):
                replies[n] = await self._send_again(calls[n], slots[n], reply, nodes[n], deadline)
        return [ResponseError(str(r)) if isinstance(r, hiredis.ReplyError) else r for r in replies]

    async def close(self) -> None:
        links, self._links = list(self._links.values()), {}
        for link in links:
            await link.close()

    async def _send(self, node: Node, calls: Sequence[Call], asking: bool = False) -> list[Any]:
        """The node's raw replies; a connection lost or silent for ``NODE_TIMEOUT_S`` is every call's error."""
        link = self._link(node)
        try:
            if asking:
                return (await asyncio.wait_for(link.raw_calls([("ASKING",), *calls]), NODE_TIMEOUT_S))[1:]
            return await asyncio.wait_for(link.raw_calls(calls), NODE_TIMEOUT_S)
        except Exception as exc:  # not a cancellation: CancelledError is no Exception
            await link.close()
            self._links.pop(node, None)
            error = (
                exc if isinstance(exc, RedisConnectionError) else RedisConnectionError(str(exc) or "timeout")
            )
            return [error] * len(calls)

    async def _send_again(self, call: Call, slot: int, reply: Any, node: Node, deadline: float) -> Any:
        """Send one refused call where the refusal says, until it runs or the deadline passes."""
        wait_s = TRY_AGAIN_FIRST_S
        while True:
            kind, named = redirection(str(reply))
            self.sent_again[kind] = self.sent_again.get(kind, 0) + 1
            log.info("gateway_call_sent_again", slot=slot, refusal=kind, node=f"{node[0]}:{node[1]}")
            asking = kind == "ASK"
            if kind in ("MOVED", "ASK"):
                node = (named[0] or node[0], named[1])  # an empty host: the one that answered
                if not asking and await self.slots.owner(slot) != node:  # MOVED: the slot's map is stale
                    await self.slots.reload(self.slots.version)
            else:  # TRYAGAIN, CLUSTERDOWN: wait, then start over from a fresh map
                if time.monotonic() + wait_s > deadline:
                    return reply
                await asyncio.sleep(wait_s)
                wait_s = min(TRY_AGAIN_MOST_S, wait_s * 2)
                await self._reload_quietly(self.slots.version)
                node = await self.slots.owner(slot)
            reply = (await self._send(node, [call], asking))[0]
            if not _refusal(reply) or time.monotonic() > deadline:
                return reply

    async def _reload_quietly(self, seen: int) -> None:
        try:
            await self.slots.reload(seen)
        except RedisConnectionError as exc:
            log.warning("gateway_slot_map_unavailable", error=str(exc))

    def _link(self, node: Node) -> Multiplexed:
        link = self._links.get(node)
        if link is None:
            link = self._links[node] = Multiplexed(node_url(self.url, node))
        return link


def _refusal(reply: Any) -> bool:
    """Whether the reply says the call did not run and should be sent elsewhere, or again."""
    return isinstance(reply, hiredis.ReplyError) and sent_again(str(reply))


def link_for(url: str, on_cluster: bool, slots: SlotMap | None = None) -> Multiplexed | ClusterMultiplexed:
    """The gateway's link: one connection on a standalone Redis, routed by slot on a Cluster."""
    if on_cluster:
        return ClusterMultiplexed(url, slots or SlotMap(url))
    return Multiplexed(url)
