"""Ways to make a real Redis refuse writes, each undone by what it returns: shared by the gateway's refusal
tests (``tests/integration/gateway/test_redis_refusals.py``) and the workers' (``test_workers_ride_out_refusals.py``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import redis

from services.redis_launcher import free_port
from tests.support.pipeline import eventually

Condition = Callable[[redis.Redis], Callable[[], None]]
"""Makes Redis refuse writes; returns what lifts it."""


def out_of_memory(client: redis.Redis) -> Callable[[], None]:
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", 1)  # every write is over: "OOM command not allowed"

    def lift() -> None:
        client.config_set("maxmemory", 0)

    return lift


def failed_save(client: redis.Redis) -> Callable[[], None]:
    """A snapshot that cannot be written (its file's name taken by a folder, as a full disk fails it):
    "MISCONF …" to every write."""
    target = Path(str(client.config_get("dir")["dir"])) / str(client.config_get("dbfilename")["dbfilename"])
    saves = str(client.config_get("save")["save"])
    client.config_set("save", "3600 1")  # writes stop on a failed save only where snapshots are configured
    client.config_set("stop-writes-on-bgsave-error", "yes")
    target.mkdir()
    client.bgsave()
    eventually(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "err", message="failed save")

    def lift() -> None:
        target.rmdir()
        client.bgsave()
        eventually(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "ok", message="a save")
        client.config_set("save", saves)

    return lift


def read_only(client: redis.Redis) -> Callable[[], None]:
    """A replica of a master that is not there (as after a failover gone wrong): "READONLY …"."""
    client.execute_command("REPLICAOF", "127.0.0.1", free_port())

    def lift() -> None:
        client.execute_command("REPLICAOF", "NO", "ONE")

    return lift
