"""What every ``harbormaster`` verb shares: the user's-mistake error, JSON flags, and which Redis to use."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from services.config import Settings
from services.discovery import find_redis
from services.redis_launcher import EmbeddedRedis, running_url


class UserError(Exception):
    """Something the user can fix: printed as one line, exit code 2."""


# --- Redis: the one in REDIS_URL, the embedded one already running, or a new embedded one -----------------


@contextmanager
def redis_for(settings: Settings) -> Iterator[str]:
    """The Redis URL a worker or gateway uses: ``REDIS_URL``, the data folder's running Redis, or the running
    ``serve``'s (found as the verbs find it, so a part started in another folder joins the service instead of
    serving an empty Redis of its own beside it: issue 43, finding 7); with none of them, an embedded one on
    the data folder, stopped when the part stops."""
    if settings.redis_url:
        yield settings.redis_url
        return
    url = running_url(settings.data_dir)
    if url:
        yield url
        return
    found = find_redis(settings, may_start=True)
    if found.url is not None:
        yield found.url
        return
    with _embedded(settings.data_dir) as started:
        yield started


@contextmanager
def redis_for_games(settings: Settings, may_start: bool = False) -> Iterator[str]:
    """The Redis URL a verb that works on games uses: the one the user means, from any folder (see
    ``services/discovery.py``); when it has to start one of its own, it says so on stderr, and stops it
    when the verb ends (also on Ctrl-C or SIGTERM, which ``cli`` turns into ``KeyboardInterrupt``)."""
    found = find_redis(settings, may_start=may_start)
    if found.url is not None:
        yield found.url
        return
    assert found.start_in is not None
    print(
        f"harbormaster: no running server found; using {found.how} (until this command ends)", file=sys.stderr
    )
    with _embedded(found.start_in) as started:
        yield started


@contextmanager
def _embedded(data_dir: Path) -> Iterator[str]:
    from services.home import folder_held

    server = EmbeddedRedis(data_dir)
    server.start()
    try:
        yield server.url
    finally:
        if folder_held(data_dir):  # a serve started meanwhile took this Redis over: it is serve's now
            sys.stderr.write(f"harbormaster: the Redis on {data_dir} is left to the serve that runs on it\n")
        else:
            server.stop()


def json_arg(text: str | None, name: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{name} is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UserError(f"{name} must be a JSON object")
    return value


def plain_number(text: str) -> int:
    """An argparse type for a seat's, player's, round's or table's number: ASCII digits only (``int``, and so
    ``type=int``, takes ``"١"`` as 1: another seat than the one the user saw; issue 43, finding 18)."""
    if not (text.isascii() and text.lstrip("-").isdigit() and len(text) <= 10):
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number in ASCII digits")
    return int(text)


def plain_numbers(text: str) -> list[int]:
    """An argparse type for a list of players' numbers, comma-separated (``adjudicate --ranking 3,0,5``),
    each ``plain_number``: one that is not is refused, naming it, never dropped (``"3,١,5"`` was read as
    ``[3, 5]``, a ranking of other players than meant)."""
    parts = [part.strip() for part in text.split(",")]
    for part in parts:
        if not (part.isascii() and part.isdigit() and len(part) <= 10):
            shown = part[:20] or "nothing"
            raise argparse.ArgumentTypeError(
                f"{shown!r} is not a player's number: numbers in ASCII digits separated by commas, e.g. 3,0,5"
            )
    return [int(part) for part in parts]
