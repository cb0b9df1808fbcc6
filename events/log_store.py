"""The service's transparency log on Redis: its leaves, its Merkle nodes and its signed checkpoints.

Every key is in the hash slot ``{log}`` (``events/keys.py``), so one Lua script (``lua/log_append.lua``)
appends a batch of leaves, the nodes they complete (``merkle.nodes_completed``), what each leaf says about
its chain (the chain's sorted set, its last head, whether it is still open) and the checkpoint signed over
the new tree, all at once, and only for the holder of the sequencer's lease, on the tree size it built on.

Proofs read O(log n) nodes: which ones depends on the index and sizes alone, so each proof is computed
twice, once to learn the nodes it needs and once on their values, fetched in one pipelined round trip.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any, TypeVar

import msgspec

from events import keys
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint

APPEND_LUA = (resources.files("events") / "lua" / "log_append.lua").read_text()
T = TypeVar("T")
_FAKE = bytes(32)

RENEW_LUA = """
-- KEYS[1] = lease; ARGV[1] = token; ARGV[2] = ttl ms. Renews only a lease we still hold.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
RELEASE_LUA = """
-- KEYS[1] = lease; ARGV[1] = token. Deletes only a lease we still hold.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
PUBLISH_LUA = """
-- KEYS[1] = keys.LOG_KEY; ARGV = origin, vkey, retired (JSON), then the vkeys ours replaces (retired).
-- Publishes the caller's key unless another one, not among those it retired, signs the log.
local current = redis.call('HGET', KEYS[1], 'vkey')
local allowed = current == false or current == ARGV[2]
for i = 4, #ARGV do if current == ARGV[i] then allowed = true end end
if not allowed then return current end
redis.call('HSET', KEYS[1], 'origin', ARGV[1], 'vkey', ARGV[2], 'retired', ARGV[3])
return 'ok'
"""


class LogError(Exception):
    """The log refused a write: someone else holds the lease, the tree moved, or another key signs it."""

    def __init__(self, message: str, status: str = "") -> None:
        super().__init__(message)
        self.status = status
        """The script's refusal: ``lease``, ``size``, ``key`` or ``node``; empty for another refusal."""


class ChainHead(msgspec.Struct, frozen=True):
    """A chain's last logged head: ``(seq, hash)``."""

    seq: int
    hash: str


class Appended(msgspec.Struct, frozen=True):
    size: int
    checkpoint: str


class PublishedKey(msgspec.Struct, frozen=True):
    origin: str
    vkey: str
    retired: list[str]


def chain_field(stream: str, chain_id: str) -> str:
    return f"{stream}:{chain_id}"


class LogStore:
    """Reads and the one write of the log, on the service's Redis (standalone or Cluster)."""

    def __init__(self, client: Any) -> None:
        self.redis: Any = client
        self._append = client.register_script(APPEND_LUA)
        self._renew = client.register_script(RENEW_LUA)
        self._release = client.register_script(RELEASE_LUA)
        self._publish = client.register_script(PUBLISH_LUA)

    # --- reads ----------------------------------------------------------------------------------------

    def size(self) -> int:
        return int(self.redis.llen(keys.LOG_LEAVES))

    def leaves(self, start: int, end: int) -> list[bytes]:
        """Leaf data of ``[start, end)`` (fewer past the end of the tree)."""
        if end <= start:
            return []
        return list(self.redis.lrange(keys.LOG_LEAVES, start, end - 1))

    def checkpoint(self) -> str | None:
        raw = self.redis.get(keys.LOG_CHECKPOINT)
        return raw.decode() if raw is not None else None

    def checkpoints(self, low: int = 0, high: int | None = None) -> list[tuple[int, str]]:
        """Every stored signed checkpoint with ``low <= size <= high``, smallest first."""
        top = "+inf" if high is None else high
        found = self.redis.zrangebyscore(keys.LOG_CHECKPOINTS, low, top, withscores=True)
        return [(int(score), member.decode()) for member, score in found]

    def nodes(self, wanted: Sequence[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
        """The stored nodes at ``(level, index)``, in one pipelined round trip; ``ProofError`` if one is missing."""
        unique = list(dict.fromkeys(wanted))
        if not unique:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for level, index in unique:
            pipe.lindex(keys.log_level(level), index)
        found = dict(zip(unique, pipe.execute(), strict=True))
        for (level, index), value in found.items():
            if value is None:
                raise merkle.ProofError(f"no node at level {level} index {index}")
        return found

    def computed(self, compute: Callable[[merkle.NodeReader], T]) -> T:
        """``compute(node)`` on the stored nodes: run once to learn which (the nodes a proof or root needs
        depend on indices and sizes, never on hashes), then on their values, fetched at once."""
        wanted: list[tuple[int, int]] = []

        def record(level: int, index: int) -> bytes:
            wanted.append((level, index))
            return _FAKE

        compute(record)
        values = self.nodes(wanted)
        return compute(lambda level, index: values[(level, index)])

    def _within(self, size: int) -> None:
        current = self.size()
        if size > current:
            raise merkle.ProofError(f"the tree has {current} leaves, not {size}")

    def root(self, size: int) -> bytes:
        self._within(size)
        return self.computed(lambda node: merkle.subtree_root(0, size, node))

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        self._within(size)
        return self.computed(lambda node: merkle.inclusion_proof(index, size, node))

    def consistency_proof(self, old: int, new: int) -> list[bytes]:
        self._within(new)
        return self.computed(lambda node: merkle.consistency_proof(old, new, node))

    def heads(self, fields: Sequence[str]) -> dict[str, ChainHead]:
        """The last logged head of each chain of ``fields`` (``<stream>:<id>``) that has one."""
        if not fields:
            return {}
        values = self.redis.hmget(keys.LOG_HEADS, list(fields))
        return {f: _head(v) for f, v in zip(fields, values, strict=True) if v is not None}

    def open_chains(self) -> list[str]:
        """The chains started in the log and not yet logged finished (``<stream>:<id>``)."""
        return [m.decode() for m in self.redis.zrange(keys.LOG_OPEN, 0, -1)]

    def chain(self, stream: str, chain_id: str, newest: int = 8) -> list[tuple[int, int]]:
        """The ``newest`` leaves logged for a chain as ``(leaf index, seq)``, newest first (a start has seq 0)."""
        found = self.redis.zrevrange(keys.log_chain(stream, chain_id), 0, newest - 1, withscores=True)
        return [(int(member), int(score)) for member, score in found]

    def chain_start(self, stream: str, chain_id: str) -> int | None:
        """The leaf index of the chain's ``Start`` (scored 0), if logged."""
        found = self.redis.zrangebyscore(keys.log_chain(stream, chain_id), 0, 0, start=0, num=1)
        return int(found[0]) if found else None

    def published_key(self) -> PublishedKey | None:
        raw = self.redis.hgetall(keys.LOG_KEY)
        if not raw or b"vkey" not in raw:
            return None
        retired = json.loads(raw.get(b"retired", b"[]"))
        return PublishedKey(raw[b"origin"].decode(), raw[b"vkey"].decode(), [str(v) for v in retired])

    def queued(self, count: int) -> list[tuple[str, bytes]]:
        """The oldest ``count`` entries of the queue: ``(entry id, leaf data)``."""
        entries = self.redis.xrange(keys.LOG_QUEUE, "-", "+", count=count)
        return [(entry_id.decode(), fields.get(b"leaf", b"")) for entry_id, fields in entries]

    def cosigned(self) -> dict[str, str]:
        """Witness key name -> the latest note carrying that witness's cosignature."""
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(keys.LOG_COSIGNED).items()}

    def has_checkpoint(self, size: int, note_text: str) -> bool:
        """Whether a stored checkpoint of ``size`` has exactly the text ``note_text`` (signatures aside)."""
        return any(note.split(stored)[0] == note_text for _, stored in self.checkpoints(size, size))

    def cosigned_checkpoint(self, witnesses: Sequence[note.Verifier]) -> str | None:
        """The latest checkpoint with the cosignature lines of those of ``witnesses`` that cosigned exactly it."""
        current = self.checkpoint()
        if current is None:
            return None
        text, _ = note.split(current)
        stored = self.cosigned()
        lines = []
        for witness in witnesses:
            signed = stored.get(witness.name)
            if signed is None or note.split(signed)[0] != text:
                continue
            mine = [s.line for s in note.split(signed)[1] if (s.name, s.id) == (witness.name, witness.id)]
            lines += mine[-1:]  # one line a witness, however often it cosigned this checkpoint
        return current + "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    # --- writes of others -----------------------------------------------------------------------------

    def store_cosigned(self, witness: str, signed: str) -> None:
        self.redis.hset(keys.LOG_COSIGNED, witness, signed)

    # --- the sequencer's lease and key ----------------------------------------------------------------

    def acquire(self, token: str, ttl_ms: int) -> bool:
        """Take the lease if free, or renew it if ours; whether we hold it now."""
        if self._renew(keys=[keys.LOG_LEASE], args=[token, ttl_ms]):
            return True
        return bool(self.redis.set(keys.LOG_LEASE, token, nx=True, px=ttl_ms))

    def release(self, token: str) -> None:
        self._release(keys=[keys.LOG_LEASE], args=[token])

    def publish_key(self, origin: str, vkey: str, retired: Sequence[str]) -> None:
        """Publish the key that signs the log; ``LogError`` when another key, not one we retired, does."""
        args = [origin, vkey, json.dumps(list(retired)), *retired]
        reply = self._publish(keys=[keys.LOG_KEY], args=args)
        if reply != b"ok":
            raise LogError(f"the log is signed by another key: {reply.decode()} (not {vkey})")

    # --- the one write --------------------------------------------------------------------------------

    def append(
        self, token: str, size: int, data: Sequence[bytes], signer: note.Signer, queue_ids: Sequence[str] = ()
    ) -> Appended:
        """Append ``data`` to the tree of ``size`` leaves and sign the new checkpoint, atomically."""
        frontier = self.nodes(_frontier(size))  # all an append reads: the old tree's compact range
        made, root = _extend(size, data, lambda level, index: frontier[(level, index)])
        new_size = size + len(data)
        signed = note.sign(Checkpoint(signer.name, new_size, root).text, signer)
        script_keys, args = _script_call(token, size, data, made, signed, signer.verifier.vkey, queue_ids)
        reply = self._append(keys=script_keys, args=args)
        status = reply[0].decode()
        if status != "ok":
            detail = [x.decode() if isinstance(x, bytes) else x for x in reply[1:]]
            raise LogError(f"the log refused the append ({status} {detail})", status)
        return Appended(int(reply[1]), signed)


def enqueue(client: Any, leaf: leaves.Commands | leaves.Rating) -> None:
    """Ask the sequencer to log ``leaf`` (a writer other than the sequencer: archives, ratings)."""
    client.xadd(keys.LOG_QUEUE, {"leaf": leaves.encode(leaf)})


def new_token() -> str:
    return secrets.token_hex(16)


def _head(raw: bytes) -> ChainHead:
    seq, _, chain_hash = raw.decode().partition(":")
    return ChainHead(int(seq), chain_hash)


def _frontier(size: int) -> list[tuple[int, int]]:
    """The perfect subtrees that make up the tree of ``size`` leaves, largest first: every stored node that
    appending to it or computing a larger tree's root needs (RFC 9162's compact range)."""
    found, start = [], 0
    for level in reversed(range(size.bit_length())):
        if size >> level & 1:
            found.append((level, start >> level))
            start += 1 << level
    return found


def _extend(
    size: int, data: Sequence[bytes], stored: merkle.NodeReader
) -> tuple[list[tuple[int, int, bytes]], bytes]:
    """The nodes appending ``data`` to the tree of ``size`` completes, in order, and the new root."""
    made: dict[tuple[int, int], bytes] = {}

    def node(level: int, index: int) -> bytes:
        found = made.get((level, index))
        return found if found is not None else stored(level, index)

    ordered: list[tuple[int, int, bytes]] = []
    for offset, leaf in enumerate(data):
        for level, index, value in merkle.nodes_completed(size + offset, merkle.leaf_hash(leaf), node):
            made[(level, index)] = value
            ordered.append((level, index, value))
    return ordered, merkle.subtree_root(0, size + len(data), node)


class _Effects(msgspec.Struct):
    """What the leaves say about their chains, as the script writes it."""

    chains: list[tuple[str, int, int]] = []
    heads: dict[str, str] = {}
    opened: dict[str, int] = {}
    closed: list[str] = []


def _effects(size: int, data: Iterable[bytes]) -> _Effects:
    effects = _Effects()
    for offset, raw in enumerate(data):
        leaf = leaves.decode(raw)
        index = size + offset
        if isinstance(leaf, leaves.Start):
            field = chain_field(leaf.stream, leaf.id)
            effects.chains.append((keys.log_chain(leaf.stream, leaf.id), 0, index))
            effects.opened[field] = index
        elif isinstance(leaf, leaves.Sealed):  # a live game's head: remembered by its seal
            field = chain_field(leaf.stream, leaf.id)
            effects.chains.append((keys.log_chain(leaf.stream, leaf.id), leaf.seq, index))
            effects.heads[field] = f"{leaf.seq}:{leaf.seal}"
        elif isinstance(leaf, leaves.Head):
            field = chain_field(leaf.stream, leaf.id)
            effects.chains.append((keys.log_chain(leaf.stream, leaf.id), leaf.seq, index))
            effects.heads[field] = f"{leaf.seq}:{leaf.hash}"
            if leaf.finished:
                effects.opened.pop(field, None)
                effects.closed.append(field)
    return effects


def _script_call(
    token: str,
    size: int,
    data: Sequence[bytes],
    made: Sequence[tuple[int, int, bytes]],
    signed: str,
    vkey: str,
    queue_ids: Sequence[str],
) -> tuple[list[str], list[bytes | str | int]]:
    """The append script's keys and arguments (laid out at the top of ``log_append.lua``)."""
    effects = _effects(size, data)
    levels = 1 + max((level for level, _, _ in made), default=-1)
    chain_keys = list(dict.fromkeys(key for key, _, _ in effects.chains))
    number = {key: n + 1 for n, key in enumerate(chain_keys)}
    script_keys = [
        keys.LOG_LEAVES, keys.LOG_LEASE, keys.LOG_CHECKPOINT, keys.LOG_CHECKPOINTS, keys.LOG_HEADS,
        keys.LOG_OPEN, keys.LOG_KEY, keys.LOG_QUEUE, *(keys.log_level(k) for k in range(levels)), *chain_keys,
    ]  # fmt: skip
    counts = [len(data), len(made), len(effects.chains), len(effects.heads), len(effects.opened)]
    args: list[bytes | str | int] = [token, size, vkey, signed, levels, *counts]
    args += [len(effects.closed), len(queue_ids), *data]
    for level, index, value in made:
        args += [level, index, value]
    for key, score, member in effects.chains:
        args += [number[key], score, member]
    for field, head in effects.heads.items():
        args += [field, head]
    for field, index in effects.opened.items():
        args += [field, index]
    return script_keys, [*args, *effects.closed, *queue_ids]
