"""Which Redis a ``harbormaster`` verb talks to, from whatever folder it is run in.

``harbormaster serve`` leaves its Redis address in a per-user state file
(``$XDG_STATE_HOME/harbormaster/serve.json``, by default ``~/.local/state/harbormaster/serve.json``, only
the user may read it) and removes it when it stops cleanly. A verb that reads or writes games looks, in
order: ``REDIS_URL``; the embedded Redis of ``HARBORMASTER_DATA`` if that is set; an embedded Redis
running on ``./.harbormaster``; the running ``serve`` of the state file. Without one it starts an embedded
Redis on the data folder only if that folder holds data (saying so), and otherwise refuses with one line
naming where it looked, instead of starting an empty Redis and answering "no such game".
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import msgspec
import redis

from events.connection import probe
from services.config import Settings
from services.redis_launcher import running_url

STATE_FILE_NAME = "serve.json"


class ServeState(msgspec.Struct, frozen=True, kw_only=True):
    """What a running ``serve`` tells the other verbs: where its Redis and gateway are."""

    redis_url: str
    pid: int
    cwd: str
    gateway: str = ""
    data_dir: str = ""
    """The service's home: its data folder (signing key, embedded Redis); the verbs that talk to this serve
    use it, wherever they run (empty in a file written before it was kept)."""
    archive_dir: str = ""
    """Where this serve's archives go (``HARBORMASTER_ARCHIVE``'s folder; empty: archives off)."""


class Found(msgspec.Struct, frozen=True, kw_only=True):
    """The Redis a verb will use, and how it was found (said to the user when it is not the obvious one)."""

    url: str | None
    """``None``: none is running; start an embedded one on ``start_in``."""
    how: str
    start_in: Path | None = None


def state_dir() -> Path:
    """The per-user folder of Harbormaster's state (XDG base directories)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "harbormaster"


def state_file() -> Path:
    return state_dir() / STATE_FILE_NAME


def announce(redis_url: str, gateway: str = "", settings: Settings | None = None) -> ServeState:
    """Write the state file for this ``serve`` (readable by this user only)."""
    home = "" if settings is None else str(settings.data_dir)
    archives = "" if settings is None or settings.archive_dir is None else str(settings.archive_dir)
    state = ServeState(redis_url=redis_url, pid=os.getpid(), cwd=os.getcwd(), gateway=gateway,
                       data_dir=home, archive_dir=archives)  # fmt: skip
    folder = state_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = folder / f".{STATE_FILE_NAME}.{os.getpid()}"
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
        handle.write(msgspec.json.encode(state))
    partial.replace(state_file())  # whole or not at all: a reader never sees half a file
    return state


def withdraw(state: ServeState) -> None:
    """Remove the state file at a clean exit, unless another ``serve`` has written its own since."""
    if read_state() == state:
        with contextlib.suppress(FileNotFoundError):
            state_file().unlink()


def read_state() -> ServeState | None:
    try:
        return msgspec.json.decode(state_file().read_bytes(), type=ServeState)
    except (FileNotFoundError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def at_home(settings: Settings) -> Settings:
    """``settings`` with the home of the service a verb talks to: the running ``serve``'s data and archive
    folders when the verb uses that serve's Redis, so a verb run from any folder writes archives and reads the
    signing key where the service keeps them (issue 43: archives split between folders). A folder the user
    named (``HARBORMASTER_DATA``, ``HARBORMASTER_ARCHIVE``), ``REDIS_URL`` or a Redis running on the local
    data folder keeps the settings as they are."""
    if settings.redis_url or settings.data_dir_named or running_url(settings.data_dir):
        return settings
    state = read_state()
    if state is None or not state.data_dir or not _answers(state.redis_url):
        return settings
    archives = settings.archive_dir
    if not settings.archive_dir_named:
        archives = Path(state.archive_dir) if state.archive_dir else None
    return msgspec.structs.replace(settings, data_dir=Path(state.data_dir), archive_dir=archives)


def _answers(url: str) -> bool:
    try:
        return bool(probe(url, 0.5, 1).ping())
    except (redis.RedisError, ValueError):
        return False


def _holds_data(folder: Path) -> bool:
    """Whether an embedded Redis has kept data in ``folder`` (its append-only files)."""
    return any(folder.glob("appendonly*")) or (folder / "dump.rdb").exists()


def find_redis(settings: Settings, may_start: bool = False) -> Found:
    """The Redis a verb that works on games should use (see the module's docstring for the order);
    ``may_start``: a verb that brings everything it needs (``tournament run``) starts an embedded Redis on
    the data folder rather than refuse."""
    if settings.redis_url:
        return Found(url=settings.redis_url, how="REDIS_URL")
    data = settings.data_dir
    explicit = settings.data_dir_named
    local = running_url(data)
    if local:
        return Found(url=local, how=f"the embedded Redis running on {data}")
    if not explicit:
        state = read_state()
        if state is not None and _answers(state.redis_url):
            return Found(url=state.redis_url, how=f"the running serve (pid {state.pid}, in {state.cwd})")
    if explicit or may_start or _holds_data(data):
        return Found(url=None, how=f"a new embedded Redis on the data in {data}", start_in=data)
    raise NoServer(
        f"no running Harbormaster found: REDIS_URL is unset, no serve is running for this user "
        f"({state_file()}) and {data} holds no data; start `harbormaster serve`, or set REDIS_URL or "
        "HARBORMASTER_DATA"
    )


class NoServer(RuntimeError):
    """No Redis to talk to: none given, none running, no data to start one on."""
