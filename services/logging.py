"""structlog set-up: key-value events, JSON in production, readable lines on a console."""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog


def configure(fmt: str = "console", level: str = "info", cache: bool = True) -> None:
    """Configure structlog once per process; ``fmt`` is ``console`` or ``json``.

    ``cache=False`` lets tests reconfigure (and capture) loggers that modules created at import.
    """
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=cast(TextIO, _Stderr())),  # writes and flushes only
        cache_logger_on_first_use=cache,
    )


class _Stderr:
    """``sys.stderr`` as it is when a line is written, not when logging was configured: a stream swapped and
    closed since (a test's captured output, a daemon's redirect) must not make every later log call raise,
    here or in a protocol callback that logs (``events/transport/multiplexed.py``)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
