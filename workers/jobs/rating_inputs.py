"""What a finished game's rating is decided from, read from Redis (the rules are ``domain/players/rating_rules``):
who sat where (accounts, bots), which seats left (the clock played their last turn), when it ended, and the
addresses each account was seen on.

Addresses: ``hm:account:<account>:addrs``, a sorted set of the addresses an account opened, joined, left or
started a table from (by when last seen), the newest ``ADDRESSES_KEPT``. They are never shown; they only keep
accounts seen on one address from rating each other (issue 44, finding 9).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.players.rating_rules import Seat
from events import codec, keys
from events.clocks import SEAT_EVENT_TYPES
from events.command_ids import reserved_prefix
from workers.jobs.table_clocks import resigned_key

ADDRESSES_KEPT = 20
UNKNOWN = "unknown"
"""What ``client_address`` says without a peer: shared by everyone, so it proves nothing."""


def addresses_key(account: str) -> str:
    return keys.account_part(account, "addrs")


def remember_address(client: Any, account: str, address: str, now_ms: int) -> Any:
    """Note that ``account`` acted from ``address`` (async or not, as ``client`` is: its result is returned
    to be awaited by an asyncio caller)."""
    pipe = client.pipeline(transaction=False)
    pipe.zadd(addresses_key(account), {address[:64]: now_ms})
    pipe.zremrangebyrank(addresses_key(account), 0, -ADDRESSES_KEPT - 1)
    return pipe.execute()


def addresses_of(client: Any, accounts: list[str]) -> dict[str, frozenset[str]]:
    """Each account's known addresses (``unknown`` left out)."""
    pipe = client.pipeline(transaction=False)
    for account in accounts:
        pipe.zrange(addresses_key(account), 0, -1)
    found = pipe.execute()
    return {
        a: frozenset(raw.decode() for raw in listed) - {UNKNOWN}
        for a, listed in zip(accounts, found, strict=True)
    }


def seats_of(
    seat_accounts: Mapping[str, str], bots: Mapping[str, str], seats: int, left: set[int]
) -> list[Seat]:
    """Every seat of the game: its account (``s:<seat>`` of the game's accounts hash), its bot, whether it left."""
    return [
        # a game's own bot seat is never one that left (its last turn, a bot's, reads as a stand-in's)
        Seat(
            seat=s,
            account=seat_accounts.get(f"s:{s}"),
            bot=bots.get(str(s)),
            abandoned=s in left and str(s) not in bots,
        )
        for s in range(seats)
    ]


def abandoned_and_end(client: Any, game_id: str) -> tuple[set[int], int]:
    """The seats that left: whose last turn was the clock's (a timeout: ``events/command_ids.py``) or a
    stand-in bot's (``bot-``: a table seat timed out to a bot, issue 44), those the log says resigned, were
    dropped or were handed to the stand-in and not taken back (``SeatResigned``, ``SeatDropped``,
    ``SeatHandedToBot``: ``domain/seat_control.py``), and, in games before those events, the resigned seats of
    the table's set (``table_clocks.resigned_key``); and when the game's last event was written (ms; 0 for a game with no
    events in Redis). ``seats_of`` leaves a game's own bot seats out."""
    last_by_clock: dict[int, bool] = {}
    left: set[int] = set()
    previous = ""
    ended = 0
    for _, fields in client.xrange(keys.events(game_id)):
        envelope = codec.decode_envelope(fields[b"e"])
        ended = envelope.ts_ms
        if envelope.type in SEAT_EVENT_TYPES:  # who plays the seat, from the log: not a turn of its own
            _seat_left(left, envelope.type, envelope.seat)
            previous = envelope.command_id
            continue
        if envelope.seat is not None and envelope.command_id != previous:
            last_by_clock[envelope.seat] = reserved_prefix(envelope.command_id) in ("timeout-", "bot-")
        previous = envelope.command_id
    resigned = {int(r) for r in client.smembers(resigned_key(game_id)) if r.isdigit()}  # older games' record
    return {seat for seat, clock in last_by_clock.items() if clock} | left | resigned, ended


LEFT_BY = {"SeatResigned": True, "SeatDropped": True, "SeatHandedToBot": True, "SeatTakenBack": False}
"""The seat events that say a seat left (``True``) or came back (``False``)."""


def _seat_left(left: set[int], kind: str, seat: int | None) -> None:
    """A resigned, dropped or handed-over seat left; one taken back is back (until it leaves again)."""
    if seat is None or kind not in LEFT_BY:
        return
    if LEFT_BY[kind]:
        left.add(seat)
    elif seat in left:
        left.discard(seat)
