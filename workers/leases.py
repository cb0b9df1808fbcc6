"""Partition leases: each inbox partition is folded by one worker at a time, which keeps per-game order.

A worker heartbeats into a sorted set of live workers and holds about ``partitions / live workers``
leases (``SET NX PX``), renewing them with a compare-and-expire script. When a worker dies its leases
expire and the others take its partitions over, claiming its pending entries.

Each taking of a lease also counts up the partition's fence (``{<lease key>}:fence``, the lease key's own
hash slot). A worker whose lease ran out (a slow step) and that takes it back finds the count one past its
own when nobody held the partition in between: nothing changed hands, so its cached games are still the
latest and ``heartbeat`` reports the partition neither lost nor gained (issue 42: dropping them turned one
slow step of cold loads into a loop of them).
"""

from __future__ import annotations

import math
import time
import zlib
from typing import Any

import redis

from events import keys

RENEW_LUA = """
-- KEYS[1] = lease key; ARGV[1] = owner; ARGV[2] = ttl in ms. Renews only a lease we still hold.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

ACQUIRE_LUA = """
-- KEYS[1] = lease key; KEYS[2] = its fence; ARGV[1] = owner; ARGV[2] = ttl in ms. Takes a free lease and
-- returns the fence counted up (how many times the lease was taken), or 0 when it is held.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0
"""

RELEASE_LUA = """
-- KEYS[1] = lease key; ARGV[1] = owner. Deletes only a lease we still hold.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class PartitionLeases:
    """The set of partitions this worker may fold now."""

    def __init__(
        self,
        client: redis.Redis,
        owner: str,
        partitions: int,
        ttl_ms: int = 3000,
        namespace: str = "",
    ) -> None:
        """``namespace``: another set of leases on the same Redis (the bot runners' shards hold theirs apart
        from the fold workers' partitions)."""
        self.redis: Any = client  # redis-py types replies loosely; ours are bytes (decode_responses off)
        self.owner = owner
        self.workers_key = keys.WORKERS + namespace
        self.namespace = namespace
        self.partitions = partitions
        self.ttl_ms = ttl_ms
        self.owned: set[int] = set()
        self.fences: dict[int, int] = {}
        """The fence each owned partition was taken at; kept after a lease is lost (not after one is shed)."""
        self._lost_since: set[int] = set()
        """Leases found lost by ``renew`` (during a step), reported by the next ``heartbeat``."""
        self._acquire_script = client.register_script(ACQUIRE_LUA)
        self._renew = client.register_script(RENEW_LUA)
        self._release = client.register_script(RELEASE_LUA)
        self._offset = zlib.crc32(owner.encode()) % partitions

    def _key(self, partition: int) -> str:
        return keys.lease(partition) + self.namespace

    def heartbeat(self) -> tuple[set[int], set[int]]:
        """Renew, shed and acquire leases; returns the partitions gained and lost.

        The worker's own heartbeat and the renewals go in one round trip: under load each round trip waits
        behind the appends in flight (three of them stalled the worker ~5 ms every second, measured).
        """
        live, lost = self._beat_and_renew()
        lost |= self._lost_since
        self._lost_since = set()
        target = math.ceil(self.partitions / live)
        self._shed(target)
        gained, resumed = self._acquire(target)
        kept = lost & resumed  # lost and taken back with nobody in between: nothing changed hands
        return gained - kept, lost - kept

    def renew(self) -> None:
        """Heartbeat and renew the owned leases only (no shedding, no taking): called between the games of
        a long step, so that a step slower than the leases' time to live keeps them. A lease found lost
        leaves ``owned`` now and is reported by the next ``heartbeat``."""
        _, lost = self._beat_and_renew()
        self._lost_since |= lost

    def _beat_and_renew(self) -> tuple[int, set[int]]:
        """Heartbeat into the set of live workers and renew the owned leases; returns the number of live
        workers and the leases lost."""
        now = time.time()
        ordered = sorted(self.owned)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(self.workers_key, {self.owner: now})
        pipe.zremrangebyscore(self.workers_key, "-inf", now - self.ttl_ms / 1000)
        pipe.zcard(self.workers_key)
        for p in ordered:  # EVALSHA by hand: a pipeline with a registered script asks SCRIPT EXISTS first
            # (and a Cluster's pipeline refuses the evalsha method, not the command)
            pipe.execute_command("EVALSHA", self._renew.sha, 1, self._key(p), self.owner, self.ttl_ms)
        replies = pipe.execute(raise_on_error=False)
        renewed = replies[3:]
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in renewed):  # the script cache was lost
            renewed = [self._renew(keys=[self._key(p)], args=[self.owner, self.ttl_ms]) for p in ordered]
        for reply in replies:
            if isinstance(reply, Exception) and not isinstance(reply, redis.exceptions.NoScriptError):
                raise reply
        lost = {p for p, ok in zip(ordered, renewed, strict=True) if not ok}
        self.owned -= lost
        return max(1, int(replies[2])), lost

    def _shed(self, target: int) -> None:
        for p in sorted(self.owned, reverse=True)[: max(0, len(self.owned) - target)]:
            self._release(keys=[self._key(p)], args=[self.owner])
            self.owned.discard(p)
            self.fences.pop(p, None)  # given away: another may take it before this worker does again

    def _acquire(self, target: int) -> tuple[set[int], set[int]]:
        """Take free leases up to ``target``; returns those taken, and among them those whose fence shows
        this worker was their last holder (taken back after its lease ran out)."""
        gained: set[int] = set()
        resumed: set[int] = set()
        for i in range(self.partitions):
            if len(self.owned) >= target:
                break
            p = (self._offset + i) % self.partitions
            if p in self.owned:
                continue
            key = self._key(p)
            fence = int(
                self._acquire_script(keys=[key, "{" + key + "}:fence"], args=[self.owner, self.ttl_ms])
            )
            if fence:
                if self.fences.get(p) == fence - 1:
                    resumed.add(p)
                self.fences[p] = fence
                self.owned.add(p)
                gained.add(p)
        return gained, resumed

    def release_all(self) -> None:
        self._shed(0)
        self.redis.zrem(self.workers_key, self.owner)
