"""Half-writes made deterministic: a writer with a ``between_steps`` hook (``services.game_creation``,
``services.players.table_start``) stops dead after a step, as after a ``kill -9``, or pauses there until the
test lets it go on. Shared by the creation and table-start half-write tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

from tests.support.harness import ServerThread, running_stack

Hook = Callable[[str], Awaitable[None]]


class Killed(Exception):
    """The writer stops here: nothing after this step is written, as after a ``kill -9``."""


def killing_at(step: str) -> Hook:
    """A hook that kills the writer right after ``step``."""

    async def hook(done: str) -> None:
        if done == step:
            raise Killed(step)

    return hook


def pausing_at(step: str, paused: threading.Event, go_on: threading.Event) -> Hook:
    """A hook that sets ``paused`` after ``step`` and waits for ``go_on`` without blocking the gateway's
    loop (its other requests go on meanwhile)."""

    async def hook(done: str) -> None:
        if done == step:
            paused.set()
            await asyncio.to_thread(go_on.wait, 30)

    return hook


@contextmanager
def stack_hooked(redis_url: str, writer: ModuleType) -> Iterator[ServerThread]:
    """The gateway's stack; ``writer.between_steps`` unset after it, whatever a test left there."""
    with running_stack(redis_url) as server:
        yield server
    writer.between_steps = None
