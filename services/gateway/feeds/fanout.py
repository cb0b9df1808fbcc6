"""Fan-out: one ``GameFeed`` per watched game per gateway process, one projection per viewer.

A ``GameFeed`` holds a game's decoded events and folded state. The hub's reader (``hub.py``,
``blocking_read.py``, ``polling.py``) reads the game's event stream and command-result stream together
with every other watched game's, folds each new event once, projects it once per kind of viewer (each
seat, and spectators) and pushes the encoded frame to every viewer (``viewer.py``). A viewer whose queue
is full is not waited for: its queue is dropped and it is sent a fresh view instead (``resync``). The same
reader settles the commands waited for (``?wait=true`` requests, the sockets') from the results riding on
the events and from the command log.

Spectators of a live tournament game with ``spectator_delay = D`` see the game ``D`` events late (never
before the end of set-up); when the game ends they catch up at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from domain.engine import Game
from events import codec, keys
from events.envelope import CommandRecord, Envelope, is_setup
from events.store import GameMeta, now_ms
from events.tlog.seal import seal
from events.transport.resp import bulk
from services.gateway.feeds.viewer import Viewer
from services.gateway.wire.frames import EventFrame, Hello, Resync
from services.gateway.wire.framing import text_frame

log = structlog.get_logger("fanout")

CHECKPOINT_EVERY = 64
"""Keep the folded state every this many events, for catch-up and replay."""
IDLE_SECONDS = 30.0
"""A feed nobody has used for this long is dropped (it is only a cache)."""
TICK_SECONDS = 0.1
"""How often events delayed in seconds are released to spectators."""
RECENT_STATES = 32
"""Keep the states after the last this many events (fan-out and delayed spectators start from them)."""
READ_BLOCK_MS = 5000
"""How long the hub's one read waits for news before it is made again."""

_encoder = msgspec.json.Encoder()


def encode_text(frame: Any) -> str:
    """A frame as the text of one WebSocket message."""
    return _encoder.encode(frame).decode()


def spectating_key(game_id: str) -> str:
    """The gateway's own settings of a game (``delay_s``: the spectator delay in seconds)."""
    return keys.spectating(game_id)


class Entry(msgspec.Struct, frozen=True):
    """One event of the game: its envelope and the decoded domain event."""

    envelope: Envelope
    event: Any
    seal: str = ""
    """The event's seal (``events/tlog/seal.py``), made the first time a viewer is shown the live event."""


class FeedStats:
    """Counters the ``/metrics`` endpoint reads."""

    def __init__(self) -> None:
        self.frames = 0
        self.resyncs = 0
        self.rewinds = 0
        """Feeds found ahead of the store, or on another history, and read again from it."""
        self.events = 0
        self.lag_ms_sum = 0
        self.lag_count = 0
        self.lag_max_ms = 0

    def lag(self, entries: list[Entry]) -> None:
        """Count how long ago each of these events was decided (one clock reading for all)."""
        now = now_ms()
        for entry in entries:
            lag = max(0, now - entry.envelope.ts_ms)
            self.lag_ms_sum += lag
            self.lag_count += 1
            self.lag_max_ms = max(self.lag_max_ms, lag)


class GameFeed:
    """A watched game: its events, folded state and viewers, kept current by the hub's reader."""

    def __init__(
        self, game_id: str, game: Game[Any, Any, Any, Any], meta: GameMeta, stats: FeedStats
    ) -> None:
        self.game_id = game_id
        self.game = game
        self.meta = meta
        self.stats = stats
        self.entries: list[Entry] = []
        self.state: Any = None
        self.finished = False
        """The game is over at ``state``: kept as events are folded, not asked of the rules on every move."""
        self.checkpoints: dict[int, Any] = {}
        self.recent: dict[int, Any] = {}
        self.setup_seq = 0
        self.viewers: set[Viewer] = set()
        self.listeners: dict[str, list[Callable[[CommandRecord], None]]] = {}
        """Commands waited for (a socket's, an HTTP ``?wait=true``), by ``keys.result_field``: called as their
        result is read, in the same turn (a future's callbacks would run a turn later, and a socket's result
        frame miss its event frame's write)."""
        self.last_used = time.monotonic()
        self._commands_cursor = b"0-0"
        self._packed_cursors: bytes | None = None
        self.closed = False
        self.resting = False
        """Unused for a while: left out of the hub's reads until used again (then caught up first)."""
        self.delay_s = 0.0
        """Spectator delay in seconds (tournament games created with ``spectator_delay_seconds``)."""
        self._last_turn: tuple[Any, list[int], Any] | None = None
        self.diverged = False
        """An event read did not link to this feed's last one: the store holds another history than the one
        folded here (Redis lost its last seconds, then went on): the hub's check reloads it (``feed_check.py``)."""

    # --- state -------------------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        return len(self.entries)

    @property
    def events_cursor(self) -> bytes:
        """The id of the last event this feed holds: where a read of the event stream takes up."""
        return b"%d-0" % self.seq

    @property
    def commands_cursor(self) -> bytes:
        """The id of the last entry of the game's command log this feed has read."""
        return self._commands_cursor

    @commands_cursor.setter
    def commands_cursor(self, entry_id: bytes) -> None:
        self._commands_cursor = entry_id
        self._packed_cursors = None

    def packed_cursors(self) -> bytes:
        """Where the hub's read takes up the event stream and the command log, packed (``feed_reads.py``)."""
        packed = self._packed_cursors
        if packed is None:
            packed = self._packed_cursors = bulk(self.events_cursor) + bulk(self._commands_cursor)
        return packed

    def add(self, envelope: Envelope) -> Entry | None:
        """Fold one envelope in (ignoring one already folded); returns the new entry."""
        if envelope.seq != self.seq + 1:
            return None
        if self.entries and envelope.prev_hash != self.entries[-1].envelope.hash:
            self.diverged = True
            return None
        entry = Entry(envelope, codec.decode_event(self.game, envelope))
        self.state = self.game.evolve(self.state, entry.event)
        self.finished = self.game.outcome(self.state) is not None
        self.entries.append(entry)
        self._packed_cursors = None
        if is_setup(envelope, self.entries[0].envelope if self.entries else envelope):
            self.setup_seq = envelope.seq
        if envelope.seq % CHECKPOINT_EVERY == 0:
            self.checkpoints[envelope.seq] = self.state
        self.recent[envelope.seq] = self.state  # the states fan-out starts from, without refolding
        self.recent.pop(envelope.seq - RECENT_STATES, None)
        return entry

    def rewind(self, fresh: GameFeed) -> None:
        """Take the store's events (``fresh``, loaded again) in place of this feed's, which the store no longer
        has (Redis lost its last seconds): every viewer is sent the store's view, a ``resync``, before
        anything else. The feed stays the same object: sockets and waiting commands keep holding it."""
        self.meta, self.entries, self.state, self.finished = (
            fresh.meta,
            fresh.entries,
            fresh.state,
            fresh.finished,
        )
        self.checkpoints, self.recent, self.setup_seq = fresh.checkpoints, fresh.recent, fresh.setup_seq
        self.delay_s = fresh.delay_s
        self.commands_cursor = fresh.commands_cursor  # its setter drops the packed cursors
        self._last_turn = None
        self.diverged = False
        for viewer in self.viewers:
            viewer.rewind(self.visible_seq(viewer.seat))
        self.stats.rewinds += 1

    def state_at(self, seq: int) -> Any:
        """The folded state after event ``seq`` (from the nearest checkpoint)."""
        if seq == self.seq:
            return self.state
        if seq in self.recent:
            return self.recent[seq]
        base = max((s for s in self.checkpoints if s <= seq), default=0)
        state = self.checkpoints.get(base)
        for entry in self.entries[base:seq]:
            state = self.game.evolve(state, entry.event)
        return state

    def delayed(self, seat: int | None) -> bool:
        """Whether this viewer sees the game late (a spectator of a live tournament game)."""
        if seat is not None or not self.meta.tournament:
            return False
        return (self.meta.spectator_delay > 0 or self.delay_s > 0) and not self.finished

    def visible_seq(self, seat: int | None) -> int:
        """The last event this viewer may see now (``spectator_delay`` events and ``delay_s`` seconds late)."""
        if not self.delayed(seat):
            return self.seq
        upto = self.seq - self.meta.spectator_delay
        if self.delay_s > 0:
            cutoff = now_ms() - int(self.delay_s * 1000)
            upto = min(upto, self.seq)
            while upto > self.setup_seq and self.entries[upto - 1].envelope.ts_ms > cutoff:
                upto -= 1
        return min(self.seq, max(self.setup_seq, upto))

    def to_act(self, state: Any) -> list[int]:
        return sorted(self.game.to_act(state)) if state is not None else []

    def redacted(self, entry: Entry, seat: int | None) -> Any:
        """The event as this viewer may see it: everything once the game has ended."""
        return entry.event if self.finished else self.game.redact(entry.event, seat)

    # --- frames ------------------------------------------------------------------------------------------

    def _seen(self, seat: int | None, seq: int) -> tuple[Any, list[int], Any, str]:
        """The game after event ``seq`` as this viewer sees it: its view, who is to act, its outcome and its
        status (``finished`` only at the last event): what a ``hello`` and a ``resync`` show."""
        state = self.state_at(seq)
        status = "finished" if seq == self.seq and self.finished else "live"
        return self.game.view(state, seat), self.to_act(state), self.game.outcome(state), status

    def shown_hash(self, seq: int, over: bool) -> str:
        """What a viewer is shown of event ``seq``'s link in the chain: its chain hash once the game is ``over``;
        while it is live its seal, since the hash with the redacted events a viewer is sent could be searched
        for what is hidden (a few thousand guesses give Manila's dealt shares). Empty before the first event."""
        if seq <= 0:
            return ""
        entry = self.entries[seq - 1]
        if over:
            return entry.envelope.hash
        if not entry.seal:  # one HMAC an event, whatever the number of viewers and frames
            made = seal(self.meta.seed, self.game_id, seq, entry.envelope.hash)
            msgspec.structs.force_setattr(entry, "seal", made)
        return entry.seal

    def hello(self, seat: int | None, seq: int) -> Hello:
        view, to_act, outcome, status = self._seen(seat, seq)
        return Hello(
            game_id=self.game_id,
            game=self.game.key,
            viewer=seat,
            seq=seq,
            hash=self.shown_hash(seq, status == "finished"),
            status=status,
            view=view,
            to_act=to_act,
            outcome=outcome,
        )

    def resync_frame(self, seat: int | None) -> tuple[int, str]:
        seq = self.visible_seq(seat)
        view, to_act, outcome, status = self._seen(seat, seq)
        resync = Resync(
            seq=seq,
            hash=self.shown_hash(seq, status == "finished"),
            view=view,
            to_act=to_act,
            outcome=outcome,
            status=status,
        )
        return seq, encode_text(resync)

    def event_frame(self, entry: Entry, state: Any, seat: int | None) -> str:
        envelope = entry.envelope
        to_act, outcome = self._turn(state)
        return encode_text(
            EventFrame(
                seq=envelope.seq,
                hash=self.shown_hash(envelope.seq, outcome is not None),
                event_type=envelope.type,
                seat=envelope.seat,
                command_id=envelope.command_id,
                event=entry.event if outcome is not None else self.game.redact(entry.event, seat),
                view=self.game.view(state, seat),
                to_act=to_act,
                outcome=outcome,
                status="finished" if outcome is not None else "live",
            )
        )

    def _turn(self, state: Any) -> tuple[list[int], Any]:
        """Who is to act in ``state`` and its outcome: the same for every kind of viewer, so worked out once
        for the last state asked about."""
        turn = self._last_turn
        if turn is None or turn[0] is not state:
            turn = self._last_turn = (state, self.to_act(state), self.game.outcome(state))
        return turn[1], turn[2]

    def frames_between(self, seat: int | None, after: int, upto: int) -> list[tuple[int, str]]:
        """Frames for events ``after+1 … upto`` as this viewer sees them. The states after recent events are
        kept (``recent``): a new event is folded once per feed, not once more per kind of viewer."""
        frames: list[tuple[int, str]] = []
        state: Any = None
        for entry in self.entries[after:upto]:
            seq = entry.envelope.seq
            known = self.recent.get(seq)
            if known is not None:
                state = known
            else:  # older than the recent states: folded from the one before (or the nearest checkpoint)
                state = self.game.evolve(self.state_at(seq - 1) if not frames else state, entry.event)
            frames.append((seq, self.event_frame(entry, state, seat)))
        return frames

    # --- viewers -----------------------------------------------------------------------------------------

    def subscribe(self, seat: int | None, after: int | None) -> tuple[Viewer, str, list[tuple[int, str]]]:
        """Register a viewer: its hello frame, then the frames it missed since ``after`` (no gaps).

        Synchronous on purpose: nothing can be folded between choosing the catch-up range and joining.
        An ``after`` beyond what the viewer may see (the store lost the events the client holds, or this
        feed has not read them yet) is answered with the view at the last it may see: ``hello``'s lower
        ``seq`` tells the client so. Never refused: it would ask again, refused again, for ever.
        """
        visible = self.visible_seq(seat)
        start = visible if after is None else min(after, visible)
        if start < 0:
            raise ValueError("from must be a sequence number")
        hello_seq = max(start, self.setup_seq)  # set-up is one opening: the hello view shows it
        missed = self.frames_between(seat, hello_seq, visible)
        viewer = Viewer(seat, visible)
        self.viewers.add(viewer)
        self.touch()
        return viewer, encode_text(self.hello(seat, hello_seq)), missed

    def unsubscribe(self, viewer: Viewer) -> None:
        viewer.closed = True
        self.viewers.discard(viewer)
        self.touch()

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def unused(self, for_s: float) -> bool:
        """No viewer, no command waiting for its result, and not asked for in the last ``for_s`` seconds."""
        return not self.viewers and not self.listeners and time.monotonic() - self.last_used > for_s

    def publish(self, entries: list[Entry]) -> None:
        """Push new frames to every viewer, one projection per kind of viewer."""
        by_seat: dict[int | None, list[Viewer]] = {}
        for viewer in self.viewers:
            by_seat.setdefault(viewer.seat, []).append(viewer)
        for seat, viewers in by_seat.items():
            upto = self.visible_seq(seat)
            after = min(viewer.queued_seq for viewer in viewers)
            if upto <= after:
                continue
            frames = self.frames_between(seat, after, upto)
            framed = [text_frame(text.encode()) for _, text in frames]  # once for every viewer of the kind
            for viewer in viewers:
                direct = viewer.direct_frames
                for (seq, text), frame in zip(frames, framed, strict=True):
                    if seq > viewer.queued_seq and not viewer.push(seq, text, frame):
                        self.stats.resyncs += 1
                        break
                self.stats.frames += viewer.direct_frames - direct
        if entries:
            self.stats.lag(entries)
        self.stats.events += len(entries)

    # --- command results ---------------------------------------------------------------------------------

    def listen(self, result_field: str, listener: Callable[[CommandRecord], None]) -> None:
        """Call ``listener`` with the command's result as soon as it is read."""
        self.listeners.setdefault(result_field, []).append(listener)

    def unlisten(self, result_field: str, listener: Callable[[CommandRecord], None]) -> None:
        listeners = self.listeners.get(result_field)
        if listeners is not None and listener in listeners:
            listeners.remove(listener)
            if not listeners:
                del self.listeners[result_field]

    def settle(self, record: CommandRecord) -> None:
        for listener in self.listeners.pop(record.result_field, ()):
            listener(record)
