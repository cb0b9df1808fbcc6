"""Many games created at once (a tournament round's tables): each game's set-up computed as ``create``
computes it (``events/game_setup.py``: byte-identical events for the same seed, set-up id and clock), and
the writes of ``CREATE_BATCH`` games sent in two round trips (and redis-py's check that the script is
loaded) where ``create`` takes three a game.

The same keys and guarantees as ``EventStore.create``: each game's set-up is its own run of the append
script with ``create`` (atomic per game, ``exists`` if the game has a position already: one writer), the
games are in ``keys.CREATING`` from before their scripts until they are in the game lists, a game found to
exist keeps its ``CREATING`` entry (the reconciler lists it if it never was) and is left out of the
result. A replica acknowledgement is asked once a batch, after its scripts (``WAIT`` covers every earlier
write of the connection). A Redis Cluster keeps each game's keys in its own slot and redis-py's cluster
pipeline refuses scripts: there, each game is created on its own, 8 at a time, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec

from events import codec, keys
from events.errors import GameExists
from events.game_setup import SetUp, set_up
from events.store import (
    EventStore,
    LoadedGame,
    created_meta,
    new_setup_id,
    now_ms,
    parse_append_replies,
    setup_item,
)

CREATE_BATCH = 256
"""Games whose set-ups one pipeline writes (a Manila game's opening events and meta are ~1.2 KB)."""
THREADS = 8
"""Games created at once on a Cluster, each on its own."""


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    """One game to create: what differs from table to table."""

    game_id: str
    seats: int
    seed: bytes
    bots: dict[int, str] = {}
    setup_id: str = ""
    """The set-up's command id (a fresh random one unless given)."""


def create_many(
    store: EventStore,
    game_key: str,
    options: Mapping[str, Any],
    games: Sequence[NewGame],
    *,
    tournament: bool = False,
    spectator_delay: int = 0,
    created_ms: int | None = None,
) -> dict[str, SetUp]:
    """Create ``games`` of ``game_key`` with ``options``; returns the set-ups of those created (a game that
    existed already is left as it was and out of the result, as ``create`` raising ``GameExists``)."""
    ts = now_ms() if created_ms is None else created_ms
    game = store.games[game_key]
    made = [set_up(game, game_key, g.game_id, g.seats, options, g.seed, setup_id=g.setup_id or new_setup_id(),
                   ts=ts, bots=g.bots, tournament=tournament, spectator_delay=spectator_delay)
            for g in games]  # fmt: skip
    if not hasattr(store.redis, "connection_pool"):  # a Cluster client (a pool per node)
        return _one_by_one(store, made)
    created: dict[str, SetUp] = {}
    for start in range(0, len(made), CREATE_BATCH):
        created.update(_write_batch(store, made[start : start + CREATE_BATCH]))
    return created


def _write_batch(store: EventStore, batch: Sequence[SetUp]) -> dict[str, SetUp]:
    """One pipeline: the games into ``CREATING``, then each one's append script (and the replica
    acknowledgement); a second: the games created into the game lists and out of ``CREATING``."""
    if not batch:
        return {}
    pipe = store.redis.pipeline(transaction=False)
    pipe.zadd(keys.CREATING, {m.header.game_id: m.header.created_ms for m in batch})
    for made in batch:
        store.queue_append_batch(pipe, made.header.game_id, [setup_item(made)], create=True)
    ack = store.replica_ack
    if ack.active:
        pipe.execute_command(*ack.command())
    replies = pipe.execute(raise_on_error=False)
    for reply in replies[: 1 + len(batch)]:
        if isinstance(reply, BaseException):
            raise reply
    if ack.active:
        ack.check(replies[-1])
    scripts = replies[1 : 1 + len(batch)]
    created = {
        m.header.game_id: m
        for m, reply in zip(batch, scripts, strict=True)
        if parse_append_replies(reply)[0].status != "exists"
    }
    if created:
        listed = store.redis.pipeline(transaction=False)
        listed.zadd(keys.GAMES_INDEX, {g: m.header.created_ms for g, m in created.items()})
        listed.zadd(keys.LIVE_GAMES, {g: m.header.created_ms for g, m in created.items()})
        listed.zrem(keys.CREATING, *created)
        listed.execute()
    return created


def _one_by_one(store: EventStore, made: Sequence[SetUp]) -> dict[str, SetUp]:
    def create(one: SetUp) -> SetUp | None:
        try:
            store.create_set_up(one)
        except GameExists:
            return None
        return one

    return {m.header.game_id: m for m in _each(create, made) if m is not None}


def _each(work: Callable[[SetUp], SetUp | None], items: Sequence[SetUp]) -> list[SetUp | None]:
    if len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(THREADS, len(items)), thread_name_prefix="hm-create") as pool:
        return list(pool.map(work, items))


def loaded_new(store: EventStore, made: SetUp) -> LoadedGame:
    """A game just created from ``made``, as a cold load would find it (its opening events folded), without
    reading it back."""
    game = store.games[made.header.game]
    state: Any = None
    for envelope in made.envelopes:
        state = game.evolve(state, codec.decode_event(game, envelope))
    last = made.envelopes[-1]  # a set-up has events (a game starts from them)
    return LoadedGame(game=game, meta=created_meta(made), state=state, seq=last.seq, hash=last.hash)
