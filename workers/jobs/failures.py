"""What a job or a supervised pass does with an error: try again, or set the item aside.

An error of Redis (down, restarting, out of memory) says nothing about the item: the job is tried again
and the pass runs again later. Any other error is the item's own (a setting stored before settings were
checked, an id from before ids were checked): tried again it would fail again, so the item is marked
failed with the reason, logged, and skipped from then on, while everything else goes on.
"""

from __future__ import annotations

import redis

TRANSIENT = (redis.RedisError, OSError)
"""Errors that say nothing about the item: tried again, never marked."""
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, OSError)
"""Redis gone (not one key refused, as ``WRONGTYPE`` or ``OOM`` refuse): a pass over many items stops there."""


def failure_reason(exc: BaseException) -> str:
    """What a failed item shows: the error's kind and its first words (never a client's text at length)."""
    return f"{type(exc).__name__}: {str(exc)[:300]}"
