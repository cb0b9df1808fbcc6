"""A Redis that loses its last seconds: restarted on a copy of its append-only file taken earlier.

What a power loss under ``appendfsync everysec`` (or a failover to a replica that lagged) does to the
store, made on purpose: ``snapshot()`` copies the append-only file as it is now (under ``appendfsync
always``, set on start, Redis writes each command to it before answering, so the copy holds everything
acknowledged so far), ``roll_back()`` kills Redis with SIGKILL, puts the copy back and starts it again on
the same folder, port and socket.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import redis

from services.redis_launcher import EmbeddedRedis

AOF_NAMES = ("appendonlydir", "appendonly.aof")
"""Redis 7 keeps its append-only file as a folder of parts, Redis 6.2 as one file."""


def copy_aof(data_dir: Path, into: Path) -> None:
    """Copy the append-only file(s) of ``data_dir`` into the folder ``into`` (emptied first)."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    _copy_aof_parts(data_dir, into)


def restore_aof(data_dir: Path, copy: Path) -> None:
    """Put the copied append-only file(s) back in place of the current ones."""
    for name in AOF_NAMES:
        current = data_dir / name
        if current.is_dir():
            shutil.rmtree(current)
        elif current.exists():
            current.unlink()
    _copy_aof_parts(copy, data_dir)


def _copy_aof_parts(source_dir: Path, target_dir: Path) -> None:
    for name in AOF_NAMES:
        source = source_dir / name
        if source.is_dir():
            shutil.copytree(source, target_dir / name)
        elif source.exists():
            shutil.copy2(source, target_dir / name)


class RollbackRedis:
    """An embedded Redis that can be sent back to an earlier copy of its append-only file."""

    def __init__(self, data_dir: Path) -> None:
        self.server = EmbeddedRedis(data_dir)
        self.copy = data_dir.parent / "aof-copy"

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> str:
        """Started with every write in the file before its answer: under ``everysec`` Redis may hold a write
        back for up to 2 s while a background fsync runs (seen on CI's disk), and a copy would miss it."""
        url = self.server.start()
        self._always_fsync()
        return url

    def _always_fsync(self) -> None:
        client = redis.Redis.from_url(self.server.url)
        try:
            client.config_set("appendfsync", "always")
        finally:
            client.close()

    def snapshot(self) -> None:
        copy_aof(self.server.data_dir, self.copy)

    def roll_back(self) -> None:
        """SIGKILL (nothing flushed on the way out), the earlier file back, started again on the same port."""
        process = self.server.process
        assert process is not None
        process.kill()
        process.wait()
        restore_aof(self.server.data_dir, self.copy)
        self.server.start()
        self._always_fsync()

    def stop(self) -> None:
        self.server.stop()
