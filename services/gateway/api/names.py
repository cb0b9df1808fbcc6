"""Player names: chosen at creation, kept in the game's spectating hash (``events/seat_names.py``, their one
writer and cleaning rule), shown by the web client.

A seat without a chosen name is called "Player N" (N counted from 1), a bot seat after its bot.
"""

from __future__ import annotations

from redis.asyncio import Redis

from domain.engine import RuleViolation
from domain.players.reserved import check_unreserved, digits_read, plain
from domain.players.rules import NAME
from events.keys import account as account_record
from events.keys import spectating
from events.seat_names import FIELD, MAX_NAME, cleaned, decoded
from services.gateway.api.requests import ApiError

__all__ = ["FIELD", "MAX_NAME", "checked", "decoded", "load", "refuse_impersonation", "with_defaults"]


def checked(names: list[str], seats: int) -> list[str]:
    """The names as stored: one per seat at most, stripped, printable, at most ``MAX_NAME`` characters; a
    name the one cleaning rule (``seat_names.cleaned``) would change otherwise than by its spaces is refused,
    so its chooser is told rather than cut."""
    if len(names) > seats:
        raise ApiError(422, "bad_names", f"{len(names)} names for {seats} seats")
    out = []
    for name in names:
        clean = cleaned(name)
        if clean != " ".join(name.split()):
            raise ApiError(422, "bad_names", f"a name is at most {MAX_NAME} printable characters")
        out.append(clean)
    return out


async def refuse_impersonation(redis: Redis, chosen: list[str]) -> None:
    """A seat of a game no account made may not be named as an account is, or as the service (422): its
    chat would read as theirs (issue 43, finding 16). Compared as seen (``domain/players/reserved.py``):
    ``ANN``, ``Аnn`` with a Cyrillic A and ``Ａｎｎ`` are all ``ann``, and so is ``4nn`` (``digits_read``)."""
    for name in chosen:
        try:
            check_unreserved(name, "a seat's name")
        except RuleViolation as exc:
            raise ApiError(422, exc.code, exc.message) from exc
    seen = {form for name in chosen if name for form in (plain(name), digits_read(name))}  # b0b reads as bob
    keys = sorted(key for key in seen if NAME.match(key))
    if not keys:
        return
    pipe = redis.pipeline(transaction=False)
    for key in keys:
        pipe.exists(account_record(key))
    taken = [key for key, found in zip(keys, await pipe.execute(), strict=True) if found]
    if taken:
        raise ApiError(422, "name_of_account", f"{taken[0]!r} is an account's name; a seat may not take it")


def with_defaults(names: list[str], seats: int, bots: dict[str, str]) -> list[str]:
    """A name for every seat: the chosen one, else the bot's kind or "Player N"."""
    chosen = names + [""] * (seats - len(names))
    return [
        name or (f"{bots[str(s)].capitalize()} bot {s + 1}" if str(s) in bots else f"Player {s + 1}")
        for s, name in enumerate(chosen[:seats])
    ]


async def load(redis: Redis, game_id: str, seats: int, bots: dict[str, str]) -> list[str]:
    return with_defaults(decoded(await redis.hget(spectating(game_id), FIELD)), seats, bots)
