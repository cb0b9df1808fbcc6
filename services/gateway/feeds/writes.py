"""Where a feed's frames go straight out, and when: the writer a viewer writes to (``FrameWriter``, fulfilled
by the socket's ``socket_writer.DirectWriter``) and the writes of one event loop's turn, made together.

Named here, in the feeds, so that they write to sockets without importing them: the socket layer sits above.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Protocol

import structlog

log = structlog.get_logger("socket_writer")


class FrameWriter(Protocol):
    """A socket's direct writer, as a viewer sees it."""

    def write(self, frame: bytes) -> bool:
        """Send the ready-framed ``frame`` this turn; False if the socket is closing or behind (then nothing
        was taken, and the frame goes through the viewer's queue)."""

    @property
    def holding(self) -> bool:
        """Frames taken this turn are not written yet: anything sent otherwise must wait for them."""


class TurnWrites(Protocol):
    """A writer holding the frames taken this turn (``DirectWriter``), written out by ``flush``."""

    def flush(self) -> None:
        """Write what was taken this turn, in one ``write``, and hold nothing more."""


class Flusher:
    """The direct writes of one event loop, made by one callback at the end of the turn that took them, or
    at once by ``flush_direct_writes`` (the hub, once it has published a read's events and settled its
    results: each socket's event and result frames go out in one write, and a turn sooner).

    One callback per socket and turn was, at 5,000 spectators, 5,000 handles per event: each young
    collection they set off moved the handles still waiting into older generations, and full collections
    of the gateway's ~400k objects (0.2–0.5 s each) followed every two seconds: the slow events of fan-out.
    """

    __slots__ = ("writers",)

    def __init__(self) -> None:
        self.writers: list[TurnWrites] = []

    def due(self, writer: TurnWrites) -> None:
        if not self.writers:
            asyncio.get_running_loop().call_soon(self.flush)  # the loop is not kept: it keys ``_flushers``
        self.writers.append(writer)

    def flush(self) -> None:
        writers = self.writers
        try:
            for writer in writers:
                try:
                    writer.flush()  # empties the writer's batch before writing: it never stays held
                except Exception as exc:  # one broken socket must not hold back the others' frames
                    log.warning("direct_write_failed", error=str(exc))
        finally:
            writers.clear()


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flusher] = weakref.WeakKeyDictionary()


def loop_flusher() -> Flusher:
    """The running loop's ``Flusher``, made on first use."""
    loop = asyncio.get_running_loop()
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = Flusher()
    return flusher


def flush_direct_writes() -> None:
    """Write the direct writes taken so far in this turn now, not at its end."""
    flusher = _flushers.get(asyncio.get_running_loop())
    if flusher is not None and flusher.writers:
        flusher.flush()
