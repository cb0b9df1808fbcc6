"""rq jobs for tests that make a Redis outage happen at a chosen instant of a job's life (imported by name
by the rq worker under test)."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def kill_redis_once(redis_pid: int, marker: str) -> str:
    """First run: kill Redis (SIGKILL) and return, so rq's bookkeeping after the job (the work-horse's and
    then the loop's) meets no Redis, as when Redis dies just as a job starts. ``marker`` (a file) says a run
    has done it: a later run only says so."""
    path = Path(marker)
    if path.exists():
        return "ran again"
    path.write_text("killed Redis\n")
    os.kill(redis_pid, signal.SIGKILL)
    return "killed Redis"
