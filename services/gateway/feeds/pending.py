"""One command from its frame (or request) to its result: ``PendingCommand``.

A seat's command, from a socket or over HTTP, is submitted (``commands.submit``: the results check and the
inbox ``XADD`` in one round trip, the future of their two replies handed to ``replied`` by the event loop) and
settled by the feed that reads its result (``GameFeed.settle``: this object is the feed's listener for it).
Its outcome is its result (applied or rejected: read by the feed, or recorded for an id used before) or a
refusal (Redis out of reach, the game over). On a socket it sends that outcome as a ``result`` frame on its
viewer, after the frames of the events it caused; over HTTP the request awaits it (``submitted``,
``settled``). One object carries the command where five classes did (issue 46).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from events import codec
from events.envelope import CommandRecord
from services.gateway.feeds.fanout import GameFeed
from services.gateway.feeds.viewer import Viewer
from services.gateway.wire.errors import ApiError
from services.gateway.wire.frames import ResultFrame

log = structlog.get_logger("ws")

_encoder = msgspec.json.Encoder()


class PendingCommand:
    """A command submitted and not yet answered; ``viewer``: the socket it came from (None over HTTP)."""

    def __init__(self, feed: GameFeed, field: str, command_id: str, viewer: Viewer | None = None) -> None:
        self.feed = feed
        self.field = field
        """Its ``keys.result_field``: the seat's own id, under which its result is recorded."""
        self.command_id = command_id
        self.viewer = viewer
        self.queued = False
        """On the inbox: its result comes with its events."""
        self.record: CommandRecord | None = None
        self.refusal: Exception | None = None
        self._wake: asyncio.Future[None] | None = None

    @property
    def done(self) -> bool:
        return self.record is not None or self.refusal is not None

    def listen(self) -> None:
        """Be settled by the feed as soon as it reads the result (before the submit: it may come first)."""
        self.feed.listen(self.field, self)

    def stop_listening(self) -> None:
        """No longer wait for the feed to read the result (a request that stopped waiting)."""
        self.feed.unlisten(self.field, self)

    def supersede(self) -> None:
        """Sent again while waiting (after a resync, say): the new copy answers, this one stays silent."""
        self.viewer = None
        self.refusal = self.refusal or ApiError(409, "superseded", "sent again")
        self.stop_listening()

    # --- the submit's two replies: the results check, then the ``XADD`` ------------------------------------

    def replied(self, replies: asyncio.Future[list[Any]]) -> None:
        """The link's future of the submit's replies is done (called by the event loop)."""
        if replies.cancelled():
            self.fail(RedisConnectionError("the submit was cancelled"))
            return
        lost = replies.exception()
        if lost is not None:
            self.fail(lost if isinstance(lost, Exception) else RedisConnectionError(str(lost)))
            return
        existing, added = replies.result()
        error = next((r for r in (existing, added) if isinstance(r, Exception)), None)
        if error is not None:
            self.fail(error if isinstance(error, ResponseError) else ResponseError(str(error)))
        elif existing is not None:
            self.settle(codec.decode_record(existing))  # an id used before: its first result
        else:
            self.queued = True
            self._woken()

    def fail(self, error: Exception) -> None:
        """Refused: an error reply, Redis out of reach, or the game over."""
        if self.done:
            return
        self.refusal = (
            error  # raised as it is to a request (``submitted``), answered as a refusal on a socket
        )
        self.stop_listening()
        if self.viewer is not None and not isinstance(error, ApiError):
            log.warning("submit_failed", game_id=self.feed.game_id, error=str(error))
            error = ApiError(503, "unavailable", "the game store is unavailable; retry shortly")
        code, message = (
            (error.code, error.message) if isinstance(error, ApiError) else ("unavailable", str(error))
        )
        self._answer(rejection_text(self.command_id, code, message))

    # --- its result, read by the feed (the feed's listener) or recorded before --------------------------

    def __call__(self, record: CommandRecord) -> None:
        self.settle(record)

    def settle(self, record: CommandRecord) -> None:
        if self.done:
            return
        self.record = record
        self.stop_listening()
        self._answer(result_text(record))

    def _answer(self, text: str) -> None:
        viewer = self.viewer
        if viewer is not None:
            if viewer.pending is not None:
                viewer.pending.pop(self.field, None)
            if not viewer.closed:
                viewer.note(text)
        self._woken()

    # --- awaited over HTTP ----------------------------------------------------------------------------------

    async def submitted(self) -> CommandRecord | None:
        """The recorded result of an id used before, else None once the command is on the inbox; a refusal
        is raised."""
        await self._until(lambda: self.queued or self.done, None)
        if self.refusal is not None:
            raise self.refusal
        return self.record

    async def settled(self, timeout_s: float) -> CommandRecord | None:
        """Its result once read, or None if it is not read within ``timeout_s``; a refusal is raised."""
        await self._until(lambda: self.done, timeout_s)
        if self.refusal is not None:
            raise self.refusal
        return self.record

    async def _until(self, ready: Callable[[], bool], timeout_s: float | None) -> None:
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else loop.time() + timeout_s
        while not ready():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return
            self._wake = loop.create_future()
            try:
                await asyncio.wait_for(self._wake, left)
            except TimeoutError:
                return

    def _woken(self) -> None:
        wake, self._wake = self._wake, None
        if wake is not None and not wake.done():
            wake.set_result(None)


def rejection_text(command_id: str, code: str, message: str) -> str:
    """A refusal as a ``result`` frame's text."""
    frame = ResultFrame(command_id=command_id, status="rejected", code=code, message=message)
    return _encoder.encode(frame).decode()


def result_text(record: CommandRecord) -> str:
    """A recorded result as a ``result`` frame's text."""
    if record.status != "applied":
        return rejection_text(record.command_id, record.code, record.message)
    frame = ResultFrame(
        command_id=record.command_id, status="applied", seq=record.last_seq, first_seq=record.first_seq
    )
    return _encoder.encode(frame).decode()
