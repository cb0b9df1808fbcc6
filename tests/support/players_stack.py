"""The gateway stack of ``tests/support/harness.py`` with the fold worker's rating hook wired in, as
``workers/runner.py`` wires it in production (the harness's worker has no hooks)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from services.players.settings import PlayerSettings
from tests.support.harness import ServerThread, running_stack
from workers.jobs.account_ratings import RatingTrigger


@contextmanager
def rated_stack(
    url: str, bot_delay_s: float = 0.05, players: PlayerSettings | None = None, **app_options: Any
) -> Iterator[ServerThread]:
    """Gateway + fold worker (rating hook on) + bot player on the Redis at ``url``; ``players``: the
    gateway's accounts and chat settings (default: ``Settings``' defaults)."""
    settings = {"players": players} if players is not None else None
    with running_stack(url, bot_delay_s=bot_delay_s, settings=settings, on_applied=RatingTrigger,
                       **app_options) as server:  # fmt: skip
        yield server


def address_of(name: str) -> str:
    """A test person's own loopback address (every account on one of its own unless told: accounts seen on
    one address are not rated against each other)."""
    n = zlib.crc32(name.lower().encode())
    return f"127.{n >> 16 & 255}.{n >> 8 & 255}.{max(n & 255, 2)}"


def sign_up(
    base: str, name: str, password: str = "correct horse battery", address: str | None = None
) -> httpx.Client:
    """A client signed in to a new account (its cookie jar holds the session), connecting from ``address``
    (a loopback address; by default its own: ``address_of``)."""
    transport = httpx.HTTPTransport(local_address=address or address_of(name))
    client = httpx.Client(base_url=base, timeout=30, transport=transport)
    response = client.post("/api/accounts", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    return client
