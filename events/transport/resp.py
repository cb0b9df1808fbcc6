"""Redis's protocol (RESP) packed in one place: whole commands by hiredis, and the parts a move's path keeps
packed because they are the same for every move of a game.

hiredis's ``pack_command`` packs a command in C; the hot paths go further and keep the head of a command
(the script and a game's keys, a game's results check and inbox append) packed once, so a move packs only
what is its own. ``tests/unit/transport/test_submit_packing.py`` holds each shortcut to the bytes that packing
the command whole gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import hiredis

from events import keys

Call = tuple[Any, ...]
"""One Redis command with its arguments (``bytes``, ``str`` or ``int``)."""

pack: Callable[[Any], bytes] = hiredis.pack_command  # typed for what we give it: str, bytes and int

ASKING = b"*1\r\n$6\r\nASKING\r\n"


def pack_calls(calls: Sequence[Call]) -> bytes:
    """Several commands, back to back."""
    return b"".join([pack(call) for call in calls])


def bulk(value: bytes) -> bytes:
    """One argument of a command (a bulk string)."""
    return b"$%d\r\n%s\r\n" % (len(value), value)


# --- submitting a command: the results check of its id, and the XADD onto its game's inbox partition -----

INBOX_FIELD: Final = b"m"
"""The field of an inbox entry that holds its message (``codec.encode_inbox``'s bytes)."""


def inbox_append(partition: int, message: bytes) -> Call:
    """The one ``XADD`` of an inbox entry: ``message`` under ``INBOX_FIELD`` on ``partition``'s stream, its id
    Redis's. Every way a command goes onto the inbox is this call (the bus's pipeline, the links' calls,
    and ``packed_submit``'s head, packed from it), so the entry's form is written once."""
    return ("XADD", keys.inbox(partition), "*", INBOX_FIELD, message)


def submit_calls(game_id: str, partitions: int, field: bytes, message: bytes) -> list[Call]:
    """The results check of ``field`` and the ``XADD`` of ``message`` onto the game's partition."""
    partition = keys.partition_for(game_id, partitions)
    return [_results_check(game_id, field), inbox_append(partition, message)]


def packed_submit(game_id: str, partitions: int, field: bytes, message: bytes) -> bytes:
    """``submit_calls`` packed from parts kept per game: a move is packed in one step, not argument by
    argument (``pack`` took ~1 us a call)."""
    check, append = _submit_heads(game_id, partitions)
    return b"%s$%d\r\n%s\r\n%s$%d\r\n%s\r\n" % (check, len(field), field, append, len(message), message)


def _results_check(game_id: str, field: bytes) -> Call:
    """Whether the command's id has a result already (a command sent again is not run twice)."""
    return ("HGET", keys.results(game_id), field)


@functools.lru_cache(maxsize=1 << 14)
def _submit_heads(game_id: str, partitions: int) -> tuple[bytes, bytes]:
    """The leading parts of ``submit_calls``' two commands, the same for every command of a game: each
    call packed with an empty last argument, which is then cut off (so the heads are the calls' own)."""
    partition = keys.partition_for(game_id, partitions)
    return (
        _without_last_argument(pack(_results_check(game_id, b""))),
        _without_last_argument(pack(inbox_append(partition, b""))),
    )


def _without_last_argument(packed: bytes) -> bytes:
    """A packed command whose last argument is empty (``$0``), without that argument."""
    empty = b"$0\r\n\r\n"
    if not packed.endswith(empty):
        raise ValueError("the last argument is not empty")
    return packed[: -len(empty)]


# --- appending: one script call per game and batch -----------------------------------------------------


def script_call(sha: str, keys_: Sequence[str], args: Sequence[Any]) -> Call:
    """``EVALSHA sha numkeys keys... args...`` as a call."""
    return ("EVALSHA", sha, len(keys_), *keys_, *args)


def pack_script_call(sha: str, keys_: tuple[str, ...], args: Sequence[Any]) -> bytes:
    """``script_call`` packed; the part that names the script and its keys is packed once for each set of
    keys (a game's are the same for each of its commands)."""
    return b"".join(
        (
            b"*%d\r\n" % (3 + len(keys_) + len(args)),
            _script_and_keys(sha, keys_),
            _without_array_header(pack(tuple(args))),
        )
    )


@functools.lru_cache(maxsize=1 << 16)
def _script_and_keys(sha: str, keys_: tuple[str, ...]) -> bytes:
    """``EVALSHA sha numkeys keys...`` without the array header (``pack_script_call`` adds it)."""
    return _without_array_header(pack(("EVALSHA", sha, len(keys_), *keys_)))


def _without_array_header(packed: bytes) -> bytes:
    """A packed command's arguments alone (its ``*<count>`` line dropped), to be joined under another header."""
    return packed[packed.index(b"\r\n") + 2 :]
