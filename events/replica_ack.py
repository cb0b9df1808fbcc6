"""Replica acknowledgement of appends (``HARBORMASTER_REPLICA_ACK``): ``WAIT`` or ``WAITAOF`` after an append,
before the command is acknowledged.

A Redis master replicates to its replicas asynchronously: an append it has run (and even fsynced) but not yet
sent on is lost when the master dies and a replica is promoted. ``WAIT numreplicas ms``, sent on the
connection that wrote, returns once that many replicas have received every earlier write of the connection;
``WAITAOF numlocal numreplicas ms`` (Redis 7.2+) once they are fsynced to the append-only file, locally and on
the replicas. A reply short of the number asked for means the append ran but is not known to be on a replica:
the sender is told ``NotReplicated`` and sends the command again with the same id, which the command-id check
answers with its first result (or applies once, if the append was lost in a failover meanwhile).
``deploy/CLUSTER.md`` says what a failover can and cannot lose under each setting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import redis

from events.errors import EventsError

MODES = ("none", "wait", "waitaof")
WAITAOF_SINCE = (7, 2)


class NotReplicated(EventsError):
    """The append ran on the master, but fewer replicas than asked for confirmed it in time."""


class ReplicaAckUnsupported(EventsError):
    """The setting is not valid, or asks for what this Redis cannot do (``WAITAOF`` before 7.2, or no AOF)."""


class ReplicaAck(msgspec.Struct, frozen=True, kw_only=True):
    """How an append is confirmed before its command is acknowledged."""

    mode: str = "none"
    """``HARBORMASTER_REPLICA_ACK``: ``none`` (the master's reply is enough), ``wait`` (``WAIT``: received by
    the replicas) or ``waitaof`` (``WAITAOF 1 n``: fsynced on the master and on the replicas)."""
    replicas: int = 1
    """``HARBORMASTER_REPLICA_ACK_REPLICAS``: how many replicas must confirm."""
    timeout_ms: int = 1000
    """``HARBORMASTER_REPLICA_ACK_TIMEOUT_MS``: how long to wait for them (0 waits for ever)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ReplicaAckUnsupported(
                f"HARBORMASTER_REPLICA_ACK must be one of {', '.join(MODES)}, not {self.mode!r}"
            )
        if self.replicas < 1 or self.timeout_ms < 0:
            raise ReplicaAckUnsupported(
                "the replica acknowledgement needs at least 1 replica and a timeout >= 0 ms"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ReplicaAck:
        default = cls()
        return cls(
            mode=env.get("HARBORMASTER_REPLICA_ACK", default.mode).strip().lower() or default.mode,
            replicas=int(env.get("HARBORMASTER_REPLICA_ACK_REPLICAS", default.replicas)),
            timeout_ms=int(env.get("HARBORMASTER_REPLICA_ACK_TIMEOUT_MS", default.timeout_ms)),
        )

    @property
    def active(self) -> bool:
        return self.mode != "none"

    def command(self) -> tuple[str | int, ...]:
        """The command to send on the connection that wrote, after its appends."""
        if self.mode == "wait":
            return ("WAIT", self.replicas, self.timeout_ms)
        return ("WAITAOF", 1, self.replicas, self.timeout_ms)

    def check(self, reply: Any) -> None:
        """Raise unless ``reply`` (to ``command()``, an error reply as its exception) confirms the appends."""
        if isinstance(reply, BaseException):
            if "unknown command" in str(reply).lower():
                raise ReplicaAckUnsupported(f"{self.mode}: {UNSUPPORTED}") from reply
            raise reply
        confirmed = int(reply) if self.mode == "wait" else int(reply[1])
        fsynced_here = self.mode == "wait" or int(reply[0]) >= 1
        if confirmed < self.replicas or not fsynced_here:
            raise NotReplicated(
                f"{self.mode}: {confirmed} of {self.replicas} replica(s) confirmed the append within "
                f"{self.timeout_ms} ms; send the command again with the same id"
            )


UNSUPPORTED = (
    "WAITAOF needs Redis 7.2 or later with appendonly yes; "
    "use HARBORMASTER_REPLICA_ACK=wait (received by a replica, not yet fsynced there)"
)


def confirmed(replies: list[Any], ack: ReplicaAck) -> list[Any]:
    """The replies of calls sent with ``ack.command()`` behind them (its reply last), without it: each call's
    reply turned into ``NotReplicated`` when the replicas did not confirm (an error reply kept as it is).

    For a connection that sends many appends and one ``WAIT`` after them, as the fold worker's wire does:
    one round trip to the replicas covers a whole batch."""
    *calls, confirmation = replies
    try:
        ack.check(confirmation)
    except (EventsError, redis.RedisError) as exc:
        return [reply if isinstance(reply, Exception) else exc for reply in calls]
    return calls


def redis_version(client: redis.Redis) -> tuple[int, ...]:
    raw = client.info("server").get("redis_version", "0")
    return tuple(int(part) for part in str(raw).split(".")[:2])


def aof_on(client: redis.Redis) -> bool:
    value = next(iter(client.config_get("appendonly").values()), b"no")
    return value in (b"yes", "yes")


def check_supported(ack: ReplicaAck, masters: Sequence[redis.Redis]) -> None:
    """Refuse ``waitaof`` at start on a master that cannot run it (older than 7.2, or no AOF), with why."""
    if ack.mode != "waitaof":
        return
    for client in masters:
        version = redis_version(client)
        if version < WAITAOF_SINCE:
            shown = ".".join(map(str, version))
            raise ReplicaAckUnsupported(f"this Redis is {shown}: {UNSUPPORTED}")
        if not aof_on(client):
            raise ReplicaAckUnsupported(f"appendonly is off: {UNSUPPORTED}")


def append_with_ack(
    cluster: Any, key: str, queue: Callable[[Any], None], ack: ReplicaAck, redirects: int = 3
) -> Any:
    """Run the call ``queue`` puts in a pipeline, then ``ack.command()``, on one connection to the master of
    ``key``'s slot of the Cluster client ``cluster``; the call's reply, once the replicas confirmed it.

    ``WAIT`` only counts the writes of the connection it is sent on, so both go out in one pipeline on one
    node. ``MOVED`` (the slot moved) reloads the slot map and sends both again; ``ASK`` (half migrated) sends
    them to the importing node after ``ASKING``: safe, an append the first node did run is answered ``dup``.
    A node that cannot be reached makes the client reload its map before the error goes to the caller.
    """
    node = cluster.get_node_from_key(key)
    asking = False
    for _ in range(redirects + 1):
        pipe = cluster.get_redis_connection(node).pipeline(transaction=False)
        if asking:
            pipe.execute_command("ASKING")
        queue(pipe)
        pipe.execute_command(*ack.command())
        try:
            *replies, confirmation = pipe.execute(raise_on_error=False)
        except (redis.ConnectionError, redis.TimeoutError):
            cluster.nodes_manager.initialize()
            raise
        reply = replies[-1]
        if isinstance(reply, redis.exceptions.MovedError):
            cluster.nodes_manager.initialize()
            node, asking = cluster.get_node_from_key(key), False
            continue
        if isinstance(reply, redis.exceptions.AskError):
            node, asking = cluster.get_node(host=reply.host, port=reply.port), True
            continue
        if isinstance(reply, BaseException):
            raise reply
        ack.check(confirmation)
        return reply
    raise redis.exceptions.ClusterError(f"the append for {key} was redirected more than {redirects} times")
