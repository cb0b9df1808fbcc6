"""Redis key names, each written here and nowhere else (``tests/unit/contract/test_redis_keys_in_one_place.py``).

A game's keys share the hash tag ``{g:<id>}`` so one game lives on one shard."""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable

PREFIX = "hm"
GROUP = "fold"
"""The consumer group of fold workers on every inbox partition."""
DEAD_LETTERS = f"{PREFIX}:dead"
GAMES_INDEX = f"{PREFIX}:games"
LIVE_GAMES = f"{PREFIX}:games:live"
CREATING = f"{PREFIX}:games:creating"
"""Games whose creation is under way: game id by when it began (``EventStore.create``), so that ``serve``'s
reconciler finishes or undoes what a creator killed half-way left (``services/game_creation.py``)."""
WORKERS = f"{PREFIX}:workers"


def address_bucket(kind: str, address: str) -> str:
    """A per-address allowance shared by every gateway (a hash: tokens and when counted; it expires once
    full again): ``chat`` (``services/gateway/access/shared_buckets.py``)."""
    return f"{PREFIX}:bucket:{kind}:{address}"


def game_key(game_id: str, part: str) -> str:
    return f"{PREFIX}:{{g:{game_id}}}:{part}"


def spectating(game_id: str) -> str:
    """The game's spectating hash: its seats' names (``events/seat_names.py``) and its spectators' delay."""
    return game_key(game_id, "spectating")


def events(game_id: str) -> str:
    """The game's event stream: one entry per event, entry id ``<seq>-0``."""
    return game_key(game_id, "events")


def meta(game_id: str) -> str:
    """A hash: header, seed, last seq and hash, status, seat kinds."""
    return game_key(game_id, "meta")


POSITION_FIELD = "@position"
"""The field of a game's results hash that holds ``<last seq>:<last hash>`` (no result field is without a
``/``, so none can be taken for it)."""


def results(game_id: str) -> str:
    """A hash: ``result_field`` -> recorded result, and the game's position under ``POSITION_FIELD``."""
    return game_key(game_id, "results")


def sender(origin: str, seat: int | None) -> str:
    """Who sent a command: ``seat0`` (a player's token), ``bot1`` (the server's bot of seat 1), ``clock``,
    ``server`` (a game's set-up). Never contains ``/``."""
    return origin if seat is None else f"{origin}{seat}"


def result_field(origin: str, seat: int | None, command_id: str) -> str:
    """The idempotency key of a command, its field in the results hash: ``<sender>/<command id>``.

    A command id is scoped to its sender: seat 1 may reuse seat 0's id, and no id a client picks can
    name a command of a bot, the clock or the server (the sender is set by the server, never the client,
    and ends at the first ``/``)."""
    return f"{sender(origin, seat)}/{command_id}"


REFUSED = "refused"
"""In the append script's arguments, the "hash after" of a block with no events that marks a rejection: its
record may be forgotten (``REFUSALS_KEPT``, ``REFUSAL_TTL_MS`` in append.lua), unlike an applied command's."""


def no_events_mark(status: str) -> str:
    """The append script's "hash after" argument of a command that appends no event."""
    return REFUSED if status == "rejected" else ""


def chat(game_id: str) -> str:
    """The game's table chat: a stream kept with the game for the record, outside its hash chain."""
    return game_key(game_id, "chat")


def commands(game_id: str) -> str:
    """A stream: the result records of commands that appended no event (rejections), in the order decided.

    An applied command's record rides on its last event (field ``r``); ``EventStore.records`` merges both.
    """
    return game_key(game_id, "commands")


def snapshot(game_id: str) -> str:
    return game_key(game_id, "snap")


def partition_for(game_id: str, partitions: int) -> int:
    """The inbox partition of a game: stable across processes and machines (crc32, not ``hash``)."""
    return zlib.crc32(game_id.encode()) % partitions


@functools.cache
def inbox(partition: int) -> str:
    return f"{PREFIX}:inbox:{partition}"


def lease(partition: int) -> str:
    """Which worker owns a partition; one owner at a time keeps per-game order."""
    return f"{PREFIX}:lease:{partition}"


# --- the service's transparency log (events/log_store.py): every key in the one hash slot ``{log}`` ------

LOG = f"{PREFIX}:{{log}}"
LOG_LEAVES = f"{LOG}:leaves"
"""A list: each leaf's data (canonical JSON, ``events/tlog/leaves.py``); the list index is the leaf index."""
LOG_CHECKPOINT = f"{LOG}:checkpoint"
"""A string: the latest signed checkpoint note."""
LOG_CHECKPOINTS = f"{LOG}:checkpoints"
"""A sorted set: every signed checkpoint note, scored by its tree size."""
LOG_COSIGNED = f"{LOG}:cosigned"
"""A hash: witness key name -> the latest checkpoint note carrying that witness's cosignature line."""
LOG_QUEUE = f"{LOG}:queue"
"""A stream of leaf data (field ``leaf``) other writers ask the sequencer to log."""
LOG_LEASE = f"{LOG}:lease"
"""The sequencer's lease: only its holder appends."""
LOG_HEADS = f"{LOG}:heads"
"""A hash: ``<stream>:<id>`` -> ``<seq>:<hash>`` of the chain's last logged head."""
LOG_OPEN = f"{LOG}:open"
"""A sorted set: the chains with a logged start and no logged finished head (scored by the start's index)."""
LOG_KEY = f"{LOG}:key"
"""A hash: the sequencer's ``origin``, ``vkey`` and ``retired`` (JSON list of vkeys) that sign the log."""


def log_level(level: int) -> str:
    """A list of the 32-byte hashes of the perfect subtrees of height ``level`` (level 0: leaf hashes)."""
    return f"{LOG}:level:{level}"


def log_chain(stream: str, chain_id: str) -> str:
    """A sorted set: member leaf index, score seq (the chain's start scored 0, each head by its seq)."""
    return f"{LOG}:chain:{stream}:{chain_id}"


def lua_key(key_of: Callable[[str], str], lua_id: str) -> str:
    """A Lua expression for ``key_of(<the Lua variable lua_id>)``: scripts that read a key per id build it
    from this, so the key's text stays here (``services/players/tables.py``)."""
    before, after = key_of("\x00").split("\x00")
    return f"'{before}' .. {lua_id}" + (f" .. '{after}'" if after else "")


def tournament_key(tournament_id: str, part: str) -> str:
    """A tournament's keys share the hash tag ``{t:<id>}`` (``events/tournament_store.py``)."""
    return f"{PREFIX}:{{t:{tournament_id}}}:{part}"


TOURNAMENTS = f"{PREFIX}:tournaments"
CLOCK_DUE = f"{PREFIX}:clock:due"
MIGRATED_SCOPED_FIELDS = f"{PREFIX}:migrated:scoped-result-fields"
METRICS = f"{PREFIX}:metrics"
ARCHIVE_INDEX = f"{PREFIX}:archive"
ARCHIVE_FAILED = f"{PREFIX}:archive:failed"
ARCHIVE_PENDING = f"{PREFIX}:archive:pending"
"""A sorted set: finished games whose archive has not verified yet, scored by when ``serve``'s pass next looks
at them (ms; ``services/archive_reconcile.py``): added as a game leaves the live index, removed once verified."""
CHAT_RELAY = f"{PREFIX}:chat:relay"
GAMES_WINNERS = f"{PREFIX}:games:winners"

# --- accounts, sessions and sign-in throttles (services/players/, services/gateway/access/) --------------
# ``name`` is the account's key (its name in lower case, ``players.rules.name_key``); the [:64] cuts bound a
# key's length whatever a client sends.

SESSIONS_REVOKED = f"{PREFIX}:session:revoked"
ACCOUNTS_SWEPT = f"{PREFIX}:accounts:nameless_swept"


def account(name: str) -> str:
    """A hash: the account (``account("*")`` is the pattern a sweep scans)."""
    return f"{PREFIX}:account:{name}"


def account_part(name: str, part: str) -> str:
    """An account's ``sessions``, ``muted``, ``games`` or ``addrs``."""
    return f"{account(name)}:{part}"


def session(digest: str) -> str:
    return f"{PREFIX}:session:{digest}"


def password_change(name: str) -> str:
    return f"{PREFIX}:password-change:{name}"


def signin_name(name: str) -> str:
    return f"{PREFIX}:signin:name:{name[:64]}"


def signin_address(address: str) -> str:
    return f"{PREFIX}:signin:addr:{address[:64]}"


def signin_pair(name: str, address: str) -> str:
    return f"{PREFIX}:signin:pair:{name[:64]}:{address[:64]}"


def signin_failed(name: str) -> str:
    return f"{PREFIX}:signin:failed:{name[:64]}"


# --- players' tables (services/players/tables.py, table_start.py, table_clock.py) ------------------------

TABLES_OPEN = f"{PREFIX}:tables:open"
TABLES_LIVE = f"{PREFIX}:tables:live"
TABLES_IDLE_PASS = f"{PREFIX}:tables:idle_pass"
TABLES_STARTING = f"{PREFIX}:tables:starting"
TABLES_LEGACY_SWEPT = f"{PREFIX}:tables:legacy_swept"
TABLES_FORFEITED = f"{PREFIX}:tables:forfeited"


def table(table_id: str) -> str:
    """A hash: the table (``table("*")`` is the pattern a sweep scans)."""
    return f"{PREFIX}:table:{table_id}"


def account_tables(name: str) -> str:
    return f"{PREFIX}:tables:of:{name}"


def address_tables(address: str) -> str:
    return f"{PREFIX}:tables:from:{address[:64]}"


def account_made(name: str) -> str:
    return f"{PREFIX}:tables:games:{name}"


def address_made(address: str) -> str:
    return f"{PREFIX}:tables:games_from:{address[:64]}"


# --- ratings (workers/jobs/account_ratings.py): one hash tag per game kind --------------------------------


def ratings_key(game: str, part: str) -> str:
    """``ratings``, ``board``, ``rated``, ``unrated``, ``history:<account>``, ``pairs:<pairing>``,
    ``game:<game id>``."""
    return f"{PREFIX}:{{r:{game}}}:{part}"
