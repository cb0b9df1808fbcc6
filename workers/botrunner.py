"""The bot runner: one loop plays the bot seats of many games, reading each game's events as they come.

One rq job per bot move (load the game, choose, submit) cost ~20 ms of an rq worker and a few of the fold
worker's (the enqueue) per move: a 1,000-player tournament ran at ~51 commands/s. The runner keeps each
game it plays folded in memory instead: one ``XREAD`` on every such game's event stream brings the new
events of all of them, which it folds into its cached states (``evolve``: no reload), chooses the moves of
the bot seats to act (the same ``moves_at`` as the rq job, from the state at that position, under the same
position-derived command ids) and submits every move of the pass in one pipeline through the bus, like any
player.

On a Cluster a read of several streams is refused across slots, so there each game's stream is read on
its own, the reads batched per node by the Cluster pipeline, polled every ``CLUSTER_POLL_MS`` while
nothing is new.

Restart-safety: the games are split into ``SHARDS`` shards (``crc32(game id)``), each held by one runner at a
time under a lease (``PartitionLeases`` in their own namespace); a killed runner's leases expire in 3 s and a
live one takes its shards, loads those games from the store and plays whatever is to act. A move sent twice
(the dead runner's and the new one's) is one command: the id is the position's. While a runner is live
(``runners_alive``) the fold worker enqueues no bot jobs; with none live it goes back to them, and the
reconciler still enqueues a job for any bot game that stood still, so a bot turn never depends on the
runner.

The runner never plays a search bot (``strong`` and its levels): a search holds its thread for its level,
which would hold every other game of its shards as long. Their turns are rq jobs (``workers/jobs/bots``)
with a deadline, which the fold worker enqueues even while a runner is live, spread over the rq workers.
"""

from __future__ import annotations

import threading
import time
import uuid
import zlib
from typing import Any

import msgspec
import structlog

from events import codec, keys
from events.bus import CommandBus
from events.envelope import InboxMessage
from events.errors import UnknownGame
from events.store import EventStore, LoadedGame, meta_from_hash, queue_meta_read
from workers.jobs.bots import moves_at
from workers.leases import PartitionLeases
from workers.outage import Episode, is_outage

log = structlog.get_logger("botrunner")

SHARDS = 16
NAMESPACE = ":bots"
RUNNERS_KEY = keys.WORKERS + NAMESPACE
"""The bot runners' heartbeats (a sorted set scored by time), kept by their leases."""
LEASE_TTL_MS = 3000
BEAT_S = 1.0
"""Leases renewed and the live index read for new games this often."""
RESEND_AFTER_S = 120.0
"""A game that has not moved this long after its bot's move was sent gets the move again (a duplicate is
refused by its id; this only covers a move lost with a Redis that restarted without it)."""
READ_BLOCK_MS = 100
STREAMS_PER_READ = 2000
CLUSTER_POLL_MS = 20
"""On a Cluster, where no read blocks on many slots, the pause between reads that found nothing new."""
TAKE_UP_S = 0.5
"""How long a beat spends loading new games; the rest wait for the next beat. A 10,000-player round opens
2,500 games at once: loading them all in one beat (a few round trips each) held the loop past its leases'
3 s, another runner took the shards and loaded them in turn, and no move was sent (issue 42)."""


def shard_of(game_id: str) -> int:
    return zlib.crc32(game_id.encode()) % SHARDS


def runners_alive(client: Any) -> bool:
    """Whether any bot runner has beaten its heart within a lease's time to live."""
    return bool(client.zcount(RUNNERS_KEY, time.time() - LEASE_TTL_MS / 1000, "+inf"))


class Seated(msgspec.Struct, kw_only=True):
    """A game the runner plays: its state as folded so far, and when its bots last moved."""

    loaded: LoadedGame
    sent_seq: int = -1
    """The position the bots' moves were last sent at (-1: none)."""
    sent_at: float = 0.0
    seen_at: float = 0.0
    """When the runner first saw the game at its current position (the bot delay counts from there)."""
    delay_s: float = 0.0
    """How long its bots wait before a move: the runner's delay (``serve --demo`` slows bots down for people
    to watch), but none in a tournament's game, which a tournament run waits for."""


class BotRunner:
    """Plays the bot seats of the games in the shards it leases, until ``stop``."""

    def __init__(self, store: EventStore, bus: CommandBus, delay_s: float = 0.0, owner: str = "") -> None:
        self.store = store
        self.bus = bus
        self.redis: Any = store.redis
        self.delay_s = delay_s
        self.owner = owner or f"bots-{uuid.uuid4().hex[:12]}"
        self.leases = PartitionLeases(store.redis, self.owner, SHARDS, LEASE_TTL_MS, namespace=NAMESPACE)
        self.games: dict[str, Seated] = {}
        self.passed: set[str] = set()
        """Live games not to play: no bot seats. Not those over: a game lingering in the live index once
        over (the index is advisory) is looked at again each beat, for a Redis that lost its last seconds
        may bring it back to life."""
        self.moves_sent = 0
        self._stop = threading.Event()
        self._next_beat = 0.0
        self.take_up_s = TAKE_UP_S

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        """The loop; leaves its leases on the way out so another runner takes the shards at once."""
        log.info("bot_runner_started", owner=self.owner)
        try:
            while not self._stop.is_set():
                self.step()
        finally:
            self.leases.release_all()
            log.info("bot_runner_stopped", owner=self.owner, moves=self.moves_sent)

    def step(self) -> None:
        """One pass: leases and new games now and then, every due move sent, then new events read."""
        now = time.monotonic()
        if now >= self._next_beat:
            self._next_beat = now + BEAT_S
            self._beat()
        wait_s = self._play(now)
        self._read(min(READ_BLOCK_MS, int(wait_s * 1000)))

    # --- which games ------------------------------------------------------------------------------------

    def _beat(self) -> None:
        _, lost = self.leases.heartbeat()
        live = self._live_games()
        self.passed &= live
        # Not those of a shard lost, nor those ended (or taken out of the index): nothing left to play.
        self.games = {g: s for g, s in self.games.items() if g in live and shard_of(g) not in lost}
        owned = self.leases.owned
        self._take_up([g for g in live - self.passed if g not in self.games and shard_of(g) in owned])
        self._rewind_stale()

    def _rewind_stale(self) -> None:
        """Load again the games the store is behind (Redis lost its last seconds): their read would start
        past the stream's end and bring nothing until the game came back there, on another history, and
        moves chosen on the lost events would be refused. One position read a game, in one round trip."""
        ids = list(self.games)
        if not ids:
            return
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            pipe.hget(keys.results(game_id), keys.POSITION_FIELD)
        for game_id, position in zip(ids, pipe.execute(), strict=True):
            loaded = self.games[game_id].loaded
            stored = int((position or b"0:").partition(b":")[0])
            if stored < loaded.seq or (
                stored == loaded.seq and position != b"%d:%s" % (stored, loaded.hash.encode())
            ):
                log.warning("bot_game_rewound", game_id=game_id, held_seq=loaded.seq, store_seq=stored)
                self._reload(game_id)

    def _reload(self, game_id: str) -> None:
        delay_s = self.games[game_id].delay_s
        try:
            self.games[game_id] = Seated(
                loaded=self.store.load(game_id), seen_at=time.monotonic(), delay_s=delay_s
            )
        except UnknownGame:  # created in the seconds the store lost
            del self.games[game_id]

    def _live_games(self, page: int = 5000) -> set[str]:
        live: set[str] = set()
        offset = 0
        while True:
            ids = self.store.list_games(live_only=True, offset=offset, limit=page)
            live.update(ids)
            if len(ids) < page:
                return live
            offset += page

    def _take_up(self, game_ids: list[str]) -> None:
        """Load the games with bot seats among ``game_ids`` (a meta read each, in one round trip), for
        ``TAKE_UP_S`` at most (at least one game); the next beat takes up the others."""
        if not game_ids:
            return
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            queue_meta_read(pipe, game_id)
        replies = pipe.execute()
        now = time.monotonic()
        loaded_one = False
        for game_id, raw, position in zip(game_ids, replies[::2], replies[1::2], strict=True):
            if loaded_one and time.monotonic() - now >= self.take_up_s:
                return  # the beat goes on: leases renewed, moves sent; the next beat takes up the rest
            if not raw or b"header" not in raw:
                continue  # created but not yet whole: the next beat looks again
            meta = meta_from_hash(raw, position)
            if not meta.bots:
                self.passed.add(game_id)
                continue
            if meta.status == "finished":
                continue
            try:
                delay_s = 0.0 if meta.tournament else self.delay_s
                loaded_one = True
                self.games[game_id] = Seated(loaded=self.store.load(game_id), seen_at=now, delay_s=delay_s)
            except UnknownGame:
                self.passed.add(game_id)

    # --- playing ----------------------------------------------------------------------------------------

    def _play(self, now: float) -> float:
        """Send the moves of every game whose bots are to act and due; returns the seconds until the next
        game is due (0 when none waits)."""
        messages: list[InboxMessage] = []
        wait_s = READ_BLOCK_MS / 1000
        for game_id, seated in list(self.games.items()):
            loaded = seated.loaded
            if loaded.game.outcome(loaded.state) is not None:
                del self.games[game_id]  # taken up again should a rollback bring the game back to life
                continue
            if seated.sent_seq == loaded.seq and now - seated.sent_at < RESEND_AFTER_S:
                continue
            due = seated.seen_at + seated.delay_s
            if due > now:
                wait_s = min(wait_s, due - now)
                continue
            moves = moves_at(loaded, searching=False)  # a search bot's turn is an rq job (fold worker's hook)
            seated.sent_seq, seated.sent_at = loaded.seq, now
            for seat, command, command_id in moves:
                messages.append(self.bus.message(game_id, seat, command, command_id, origin="bot"))
        if messages:
            self.bus.submit_many(messages)
            self.moves_sent += len(messages)
        return wait_s

    def _read(self, block_ms: int) -> None:
        """Fold the new events of every game played (one ``XREAD``, blocking while nothing is new). On a
        Cluster: one ``XREAD`` a game (a read of several streams is refused across slots), sent as the Cluster
        pipeline's one batch a node; nothing new, it waits a poll interval instead of blocking."""
        ids = list(self.games)
        if not ids:
            self._stop.wait(block_ms / 1000)
            return
        found = False
        for start in range(0, len(ids), STREAMS_PER_READ):
            chunk = ids[start : start + STREAMS_PER_READ]
            streams = {keys.events(g): f"{self.games[g].loaded.seq}-0" for g in chunk}
            if self.bus.on_cluster:
                pipe = self.redis.pipeline(transaction=False)
                for key, position in streams.items():
                    pipe.xread({key: position})
                read = [stream for reply in pipe.execute() for stream in reply or []]
            else:
                # Block only when this is the one read of the pass: a second chunk must not wait on the first.
                block = block_ms if block_ms > 0 and len(ids) <= STREAMS_PER_READ else None
                read = self.redis.xread(streams, block=block) or []
            for key, entries in read:
                found = True
                self._fold(chunk_game(key), entries)
        if self.bus.on_cluster and not found and block_ms > 0:
            self._stop.wait(min(block_ms, CLUSTER_POLL_MS) / 1000)

    def _fold(self, game_id: str, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        seated = self.games.get(game_id)
        if seated is None:
            return
        loaded = seated.loaded
        state, seq, chain_hash = loaded.state, loaded.seq, loaded.hash
        for _, fields in entries:
            envelope = codec.decode_envelope(fields[b"e"])
            if envelope.seq != seq + 1 or envelope.prev_hash != chain_hash:
                # a gap (never expected), or another history than the one folded here (the store lost
                # events this runner had read, then went on): load the game afresh instead
                self._reload(game_id)
                return
            state = loaded.game.evolve(state, codec.decode_event(loaded.game, envelope))
            seq, chain_hash = envelope.seq, envelope.hash
        seated.loaded = msgspec.structs.replace(loaded, state=state, seq=seq, hash=chain_hash)
        seated.seen_at = time.monotonic()


def chunk_game(stream_key: bytes | str) -> str:
    """The game id of an event stream's key (``hm:{g:<id>}:events``)."""
    key = stream_key.decode() if isinstance(stream_key, bytes) else stream_key
    return key[key.index("{g:") + 3 : key.rindex("}")]


def start_in_thread(store: EventStore, bus: CommandBus, delay_s: float = 0.0) -> BotRunner:
    """A runner on a daemon thread of this process (the rq worker's: its jobs mostly wait on Redis)."""
    runner = BotRunner(store, bus, delay_s)
    threading.Thread(target=_run_forever, args=(runner,), name="bot-runner", daemon=True).start()
    return runner


OTHER_ERROR_WAIT_S = 1.0
"""The wait after an error that is not Redis's (a record the runner cannot read): logged each time."""


def _run_forever(runner: BotRunner) -> None:
    """Run, and start again after an error (a Redis outage or refusal, mostly): the runner's state is only a
    cache. A stretch of Redis trouble is logged once (``workers/outage.py``), any other error each time."""
    episode = Episode("bot_runner")
    while not runner._stop.is_set():
        started = time.monotonic()
        try:
            runner.run()
        except Exception as exc:  # reload everything, go on
            if is_outage(exc):
                wait_s = episode.failed(exc, started)
            else:
                log.warning("bot_runner_error", error=str(exc) or type(exc).__name__)
                wait_s = OTHER_ERROR_WAIT_S
            runner.games.clear()
            runner._stop.wait(wait_s)
        else:
            return
