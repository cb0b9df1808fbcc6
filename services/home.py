"""One service, one home: a second ``harbormaster serve`` is refused before it starts anything (issue 43).

Before, a second ``make run`` printed "Harbormaster is up", failed to bind, left a gateway behind, added demo
games to the first one's Redis and rewrote ``serve.json``, so the verbs lost the first. Now ``serve`` first
checks, in order: a ``serve`` of this user still running (``serve.json``'s process alive), a ``serve`` holding
the data folder (an ``flock`` on ``<data>/serve.lock``, held while it runs and dropped by the kernel when it
dies, even by ``kill -9``), and the address it is to listen on; any of them refuses it in one line.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from services.cli_common import UserError
from services.discovery import ServeState, read_state

LOCK_NAME = "serve.lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_serve(pid: int) -> bool:
    """Whether ``pid`` is a ``harbormaster serve`` (a pid reused by another program is not)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return _alive(pid)  # no /proc (macOS): a live pid of the state file is taken at its word
    return b"serve" in argv


def running_serve() -> ServeState | None:
    """This user's ``serve`` that still runs (from ``serve.json``), if any other than this process."""
    state = read_state()
    if state is None or state.pid == os.getpid() or not _alive(state.pid) or not _is_serve(state.pid):
        return None
    return state


def _check_address(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UserError(
                    f"{host}:{port} is in use by another program: choose another with --port"
                ) from None
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


@contextlib.contextmanager
def home(data_dir: Path, host: str, port: int, own_redis: bool) -> Iterator[None]:
    """Hold this ``serve``'s home for the block, or raise :class:`UserError` naming the one that holds it.

    ``own_redis``: the serve runs the embedded Redis of ``data_dir`` (no ``REDIS_URL``), so the folder is
    locked; with ``REDIS_URL`` there is no folder to hold, but still one serve of this user at a time.
    """
    other = running_serve()
    if other is not None:
        raise UserError(
            f"Harbormaster already runs (pid {other.pid}, {other.gateway or other.redis_url}, started in "
            f"{other.cwd}): stop it first (Ctrl-C in its terminal, or kill -TERM {other.pid})"
        )
    lock = _lock(data_dir) if own_redis else None
    try:
        _check_address(host, port)
        yield
    finally:
        if lock is not None:
            lock.close()


def folder_held(data_dir: Path) -> bool:
    """Whether a ``serve`` holds ``data_dir`` now (its lock is taken): a command that started the folder's
    Redis leaves it running at its end, since that serve adopted it (issue 42: a ``tournament run`` shut
    down the Redis a ``serve`` had adopted, and ``serve`` answered 503 from then on)."""
    try:
        handle = open(data_dir / LOCK_NAME)  # noqa: SIM115 - closed below
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _lock(data_dir: Path) -> IO[str]:
    data_dir.mkdir(parents=True, exist_ok=True)
    handle = open(data_dir / LOCK_NAME, "a+")  # noqa: SIM115 - held open for the serve's lifetime
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise UserError(
            f"another serve runs on the data in {data_dir} (pid {holder}): stop it first, or name another "
            "folder with HARBORMASTER_DATA"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
