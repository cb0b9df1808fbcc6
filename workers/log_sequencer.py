"""The log's sequencer: every ``interval`` seconds, the leaves the service's chains call for, appended and signed.

One round (``LogSequencer.tick``): take or renew the lease; read which games and tournaments exist and where
their chains stand (pipelined); decide what to log (``plan``, pure): a ``Start`` leaf for each chain not yet
in the log, a ``Head`` leaf for each chain whose last ``(seq, hash)`` moved, ``finished`` once its game or
tournament has ended; then the leaves other writers queued (``Commands``, ``Rating``). They are appended in
batches, each with its nodes and its signed checkpoint in one compare-and-set (``events/log_store.py``): a
second sequencer that runs meanwhile is refused and writes nothing, so the log is one history. All of its
state is in Redis: a sequencer started again (or another one, once the lease expires) goes on from there.

A chain that ended between two rounds has left the live set (and may have been archived and trimmed), but its
meta hash keeps its status and header and its results hash its position (``events/archived.py``), and the log
keeps every chain it started and has not seen finish (``hm:{log}:open``): its final head is logged all the same.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import msgspec
import redis
import structlog

from events import codec, keys
from events.chain import genesis
from events.log_store import ChainHead, LogError, LogStore, chain_field, new_token
from events.tlog import leaves, note
from events.tlog.seal import seal
from events.tournament_store import INDEX as TOURNAMENTS_INDEX
from events.tournament_store import tournament_key
from workers.outage import Episode, is_outage

log = structlog.get_logger("log_sequencer")

BATCH = 1000
"""Leaves a single append carries at most (the script's arguments stay a few thousand)."""
QUEUE_BATCH = 5000
"""Queued leaves one round takes at most."""
NEW_WINDOW_MS = 120_000
"""How far back, in creation time, each round looks for chains it has not logged yet: a game created by a
process whose clock lags the others is still found (a sequencer started anew looks at every chain)."""
ENDED = {"game": (b"finished",), "tournament": (b"finished", b"cancelled")}


class Observed(msgspec.Struct, frozen=True):
    """Where one chain stands now, as Redis says."""

    stream: leaves.Stream
    id: str
    seq: int
    hash: str
    finished: bool
    start: leaves.Start | None = None
    """Read only for a chain the log has not started."""
    sealed: bool = False
    """A live game: ``hash`` is event ``seq``'s seal (``events/tlog/seal.py``), logged as a ``Sealed`` leaf."""

    @property
    def field(self) -> str:
        return chain_field(self.stream, self.id)


def plan(
    observed: Sequence[Observed], logged: Mapping[str, ChainHead], opened: Collection[str]
) -> list[leaves.Leaf]:
    """The leaves one round adds: every new chain's start, then every moved or newly finished chain's head.

    ``logged``: each chain's last logged head; ``opened``: the chains started and not logged finished (a
    chain with a head but not open has its finished head logged: nothing more is said of it).
    """
    starts: list[leaves.Leaf] = []
    heads: list[leaves.Leaf] = []
    for chain in observed:
        field = chain.field
        last = logged.get(field)
        if field not in opened:
            if last is not None or chain.start is None:
                continue
            starts.append(chain.start)
        if chain.seq <= 0:
            continue
        if last is None or (last.seq, last.hash) != (chain.seq, chain.hash) or chain.finished:
            heads.append(_head(chain))
    return [*starts, *heads]


def _head(chain: Observed) -> leaves.Leaf:
    if chain.sealed:
        return leaves.Sealed(stream=chain.stream, id=chain.id, seq=chain.seq, seal=chain.hash)
    return leaves.Head(
        stream=chain.stream, id=chain.id, seq=chain.seq, hash=chain.hash, finished=chain.finished
    )


def _meta_key(stream: str, chain_id: str) -> str:
    return keys.meta(chain_id) if stream == "game" else tournament_key(chain_id, "meta")


def _results_key(stream: str, chain_id: str) -> str:
    return keys.results(chain_id) if stream == "game" else tournament_key(chain_id, "results")


class LogSequencer:
    """The one writer of the log (by its lease); ``tick`` is one round, ``run`` rounds until stopped."""

    def __init__(
        self,
        client: Any,
        signer: note.Signer,
        retired: Sequence[str] = (),
        interval_s: float = 1.0,
        lease_ttl_ms: int | None = None,
    ) -> None:
        self.redis: Any = client
        self.store = LogStore(client)
        self.signer = signer
        self.retired = list(retired)
        self.interval_s = interval_s
        self.lease_ttl_ms = lease_ttl_ms or int(max(5.0, 3 * interval_s) * 1000)
        self.token = new_token()
        self.stopping = threading.Event()
        self._newest: dict[str, float] = {}
        """The newest creation score seen in each index (a round looks at chains made after it, less a window)."""
        self.appended = 0

    def publish(self) -> None:
        """Publish our key as the log's (``LogError`` if another key signs it)."""
        self.store.publish_key(self.signer.name, self.signer.verifier.vkey, self.retired)

    # --- reading what is there ------------------------------------------------------------------------

    def _new_in(self, index: str) -> list[str]:
        newest = self._newest.get(index)
        low = "-inf" if newest is None else newest - NEW_WINDOW_MS
        found = self.redis.zrangebyscore(index, low, "+inf", withscores=True)
        if found:
            self._newest[index] = max(newest or 0.0, max(score for _, score in found))
        elif newest is None:
            self._newest[index] = 0.0
        return [member.decode() for member, _ in found]

    def candidates(self) -> list[tuple[leaves.Stream, str]]:
        """Every chain that may call for a leaf: live games, chains created lately, chains the log keeps open."""
        chains: dict[tuple[leaves.Stream, str], None] = {}
        for field in self.store.open_chains():
            stream, _, chain_id = field.partition(":")
            chains[("tournament" if stream == "tournament" else "game", chain_id)] = None
        for game_id in [m.decode() for m in self.redis.zrange(keys.LIVE_GAMES, 0, -1)] + self._new_in(
            keys.GAMES_INDEX
        ):
            chains[("game", game_id)] = None
        for tournament_id in self._new_in(TOURNAMENTS_INDEX):
            chains[("tournament", tournament_id)] = None
        return list(chains)

    def observe(
        self,
        chains: Sequence[tuple[leaves.Stream, str]],
        logged: Mapping[str, ChainHead],
        opened: Collection[str],
    ) -> list[Observed]:
        """Each chain's status, then its position (in that order: a chain read as ended has its final
        position), and the header of those the log has not started; one pipeline."""
        todo = [c for c in chains if chain_field(*c) in opened or chain_field(*c) not in logged]
        pipe = self.redis.pipeline(transaction=False)
        for stream, chain_id in todo:
            pipe.hmget(_meta_key(stream, chain_id), "status", "header", "seed")
            pipe.hget(_results_key(stream, chain_id), keys.POSITION_FIELD)
        replies = pipe.execute(raise_on_error=False)  # a record of the wrong type fails its reply only
        observed = []
        for n, (stream, chain_id) in enumerate(todo):
            meta, position = replies[2 * n], replies[2 * n + 1]
            failed = next((r for r in (meta, position) if isinstance(r, Exception)), None)
            if failed is not None:  # one bad record (a key of another type) never stops the log
                log.warning("log_chain_unreadable", stream=stream, id=chain_id, error=str(failed)[:200])
                continue
            status, header, seed = meta
            if header is None:  # not (or no longer) a chain
                continue
            seq, _, chain_hash = (position or b"0:").decode().partition(":")
            start = None
            if chain_field(stream, chain_id) not in opened:
                try:
                    decoded = codec.decode_header(header)
                except (msgspec.DecodeError, msgspec.ValidationError):  # one bad record never stops the log
                    log.warning("log_chain_header_unreadable", stream=stream, id=chain_id)
                    continue
                start = leaves.Start(
                    stream=stream,
                    id=chain_id,
                    genesis=genesis(decoded),
                    seed_commitment=decoded.seed_commitment,
                )
            finished = status in ENDED[stream]
            sealed = stream == "game" and not finished and seed is not None and int(seq) > 0
            if sealed:  # its hash would give away what is hidden from its viewers
                chain_hash = seal(bytes(seed), chain_id, int(seq), chain_hash)
            observed.append(Observed(stream, chain_id, int(seq), chain_hash, finished, start, sealed))
        return observed

    def _queued(self) -> tuple[list[tuple[bytes, str]], list[str]]:
        """The queued leaves to log, with their entry ids, and the ids of entries that are not such a leaf."""
        wanted, dropped = [], []
        for entry_id, data in self.store.queued(QUEUE_BATCH):
            try:
                leaf = leaves.decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                leaf = None
            if isinstance(leaf, leaves.Commands | leaves.Rating) and leaves.encode(leaf) == data:
                wanted.append((data, entry_id))
            else:
                log.warning("log_queue_entry_dropped", entry_id=entry_id, data=data[:80])
                dropped.append(entry_id)
        return wanted, dropped

    # --- one round ------------------------------------------------------------------------------------

    def tick(self) -> int:
        """One round; returns the leaves it appended (0 also when another sequencer holds the lease)."""
        if not self.store.acquire(self.token, self.lease_ttl_ms):
            return 0
        size = self.store.size()
        chains = self.candidates()
        logged = self.store.heads([chain_field(*c) for c in chains])
        opened = set(self.store.open_chains())
        planned = plan(self.observe(chains, logged, opened), logged, opened)
        queued, dropped = self._queued()
        items: list[tuple[bytes, str | None]] = [(leaves.encode(leaf), None) for leaf in planned]
        items += [(data, entry_id) for data, entry_id in queued]
        if not items and not dropped and self._checkpoint_is_ours():
            return 0
        try:
            return self._append(size, items, dropped)
        except LogError as exc:  # another sequencer appended meanwhile, or took the lease: next round
            log.warning("log_append_refused", error=str(exc))
            if exc.status == "key" and self.store.published_key() is None:  # Redis lost it (flushed): again
                self.publish()
            return 0

    def _checkpoint_is_ours(self) -> bool:
        """Whether the latest checkpoint is there and signed by our key (after a rotation it is signed again)."""
        current = self.store.checkpoint()
        if current is None:
            return False
        try:
            note.open_note(current, [self.signer.verifier])
        except note.NoteError:
            return False
        return True

    def _append(self, size: int, items: Sequence[tuple[bytes, str | None]], dropped: Sequence[str]) -> int:
        started = time.perf_counter()
        batches = [items[i : i + BATCH] for i in range(0, len(items), BATCH)] or [[]]
        for n, batch in enumerate(batches):
            if n and not self.store.acquire(self.token, self.lease_ttl_ms):  # a long round keeps its lease
                raise LogError("the lease was lost during the round", "lease")
            data = [d for d, _ in batch]
            ids = [i for _, i in batch if i is not None] + (list(dropped) if n == len(batches) - 1 else [])
            size = self.store.append(self.token, size, data, self.signer, ids).size
            self.appended += len(batch)
        log.info(
            "log_appended", leaves=len(items), size=size, ms=round((time.perf_counter() - started) * 1000, 1)
        )
        return len(items)

    def run(self) -> None:
        """Rounds every ``interval_s`` until ``stopping`` is set; Redis outages and refusals (out of memory, a
        full disk) are waited out, logged once a stretch (``workers/outage.py``)."""
        episode, published = Episode("log_sequencer"), False
        try:
            while not self.stopping.is_set():
                started, wait_s = time.monotonic(), self.interval_s
                try:
                    if not published:
                        self.publish()
                        published = True
                        log.info(
                            "log_sequencer_started", origin=self.signer.name, vkey=self.signer.verifier.vkey
                        )
                    self.tick()
                    episode.ended()
                except (redis.RedisError, OSError) as exc:
                    if not is_outage(exc):
                        raise
                    wait_s = max(wait_s, episode.failed(exc, started))
                self.stopping.wait(wait_s)
        finally:
            with contextlib.suppress(redis.RedisError):  # else the lease expires on its own
                self.store.release(self.token)
