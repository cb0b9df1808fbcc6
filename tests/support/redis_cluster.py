"""A real local Redis Cluster for the tests: 3 masters and 3 replicas on free loopback ports.

Each node is an ``EmbeddedRedis`` (the same ``redis-server`` the other tests use: ``PATH``'s, or the one
``HARBORMASTER_REDIS_SERVER`` names) started with ``--cluster-enabled yes``; ``redis-cli --cluster create``
assigns the slots and pairs each master with a replica, and the cluster is ready once every node reports
``cluster_state:ok`` and agrees on who owns every slot. The Cluster bus port is left where every Redis puts
it by default (10,000 above the client port), so Redis 6.2, which cannot move it, works too.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis

from services.redis_launcher import EmbeddedRedis, free_port

MASTERS = 3
REPLICAS_PER_MASTER = 1


class ClusterUnavailable(RuntimeError):
    """This machine cannot start a local cluster (no ``redis-cli``); the tests say so and skip."""


def redis_cli() -> str:
    found = shutil.which("redis-cli")
    if not found:
        raise ClusterUnavailable(
            "no redis-cli on PATH: the cluster tests need it for `redis-cli --cluster create`"
        )
    return found


def why_no_cluster() -> str | None:
    """Why this machine cannot start a local cluster, or None when it can (tests skip, benches say so)."""
    try:
        redis_cli()
    except ClusterUnavailable as exc:
        return str(exc)
    return None


def _port_with_a_free_bus_port(taken: set[int]) -> int:
    """A free port whose Cluster bus port (10,000 above) is free too, and not already handed out."""
    while True:
        port = free_port()
        if port > 55535 or port in taken or port + 10000 in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        taken.update((port, port + 10000))
        return port


class LocalCluster:
    """Six ``redis-server`` children forming one Cluster; ``url`` names a node with the cluster scheme."""

    def __init__(self, data_dir: Path, masters: int = MASTERS, replicas: int = REPLICAS_PER_MASTER) -> None:
        self.data_dir = Path(data_dir)
        self.masters = masters
        self.replicas = replicas
        self.nodes: list[EmbeddedRedis] = []

    @property
    def ports(self) -> list[int]:
        return [node.port or 0 for node in self.nodes]

    @property
    def url(self) -> str:
        """A seed node with the explicit scheme (any node would do: clients learn the rest)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    @property
    def plain_url(self) -> str:
        """The same seed node as a plain ``redis://`` URL (found to be a cluster by ``INFO cluster``)."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def start(self, timeout: float = 30.0) -> LocalCluster:
        cli = redis_cli()
        taken: set[int] = set()
        for i in range((self.masters) * (1 + self.replicas)):
            folder = self.data_dir / f"node{i}"
            node = EmbeddedRedis(
                folder,
                port=_port_with_a_free_bus_port(taken),
                unix_socket=False,
                extra_args=(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", str(folder / "nodes.conf"),
                    "--cluster-node-timeout", "2000",
                ),
            )  # fmt: skip
            self.nodes.append(node)
            node.start()
        if self.replicas == 0:
            self._form_by_hand()
            self.wait_ok(timeout)
            return self
        hosts = [f"127.0.0.1:{p}" for p in self.ports]
        created = subprocess.run(
            [cli, "--cluster", "create", *hosts, "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            capture_output=True,
            timeout=timeout,
        )
        if created.returncode != 0:
            self.stop()
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout[-2000:]!r}")
        self.wait_ok(timeout)
        return self

    def _form_by_hand(self) -> None:
        """Masters only (the bench's 1 and 2 masters: ``redis-cli --cluster create`` wants at least 3): each
        node is given an even share of the slots and meets the first one."""
        count = len(self.nodes)
        for n, port in enumerate(self.ports):
            node = self.client(port)
            try:
                first, last = 16384 * n // count, 16384 * (n + 1) // count - 1
                node.execute_command("CLUSTER", "ADDSLOTS", *range(first, last + 1))
                if n:
                    node.execute_command("CLUSTER", "MEET", "127.0.0.1", self.ports[0])
            finally:
                node.close()

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1, socket_timeout=5)

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node says ``cluster_state:ok`` and sees the same slot owners."""
        deadline = time.monotonic() + timeout
        while True:
            if self._agreed():
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster did not reach cluster_state:ok within {timeout} s")
            time.sleep(0.1)

    def _agreed(self) -> bool:
        views = set()
        for node in self.nodes:
            if node.process is None or node.process.poll() is not None:
                continue
            client = self.client(node.port or 0)
            try:
                if client.execute_command("CLUSTER", "INFO").find(b"cluster_state:ok") < 0:
                    return False
                slots = client.execute_command("CLUSTER", "SLOTS")
                if any(len(s) - 3 < self.replicas for s in slots):
                    return False  # a replica has not attached yet
                views.add(tuple(sorted((int(s[0]), int(s[1]), int(s[2][1])) for s in slots)))
            except redis.RedisError:
                return False
            finally:
                client.close()
        return len(views) == 1 and sum(end - start + 1 for start, end, _ in next(iter(views))) == 16384

    def master_ports(self) -> list[int]:
        client = self.client(self.ports[0])
        try:
            return sorted({int(s[2][1]) for s in client.execute_command("CLUSTER", "SLOTS")})
        finally:
            client.close()

    def command_calls(self, command: str) -> int:
        """How many times the live masters have run ``command`` (``INFO commandstats``, e.g. ``xread``)."""
        total = 0
        for port in self.master_ports():
            node = self.client(port)
            try:
                total += int(node.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))
            finally:
                node.close()
        return total

    def node_id(self, port: int) -> str:
        client = self.client(port)
        try:
            return str(client.execute_command("CLUSTER", "MYID").decode())
        finally:
            client.close()

    def move_slot(self, slot: int, source: int, target: int) -> None:
        """Migrate ``slot`` with its keys from the master on port ``source`` to the one on ``target``, the way
        ``redis-cli --cluster reshard`` does: IMPORTING/MIGRATING, ``MIGRATE`` key by key, then NODE."""
        self.begin_move(slot, source, target)
        self.finish_move(slot, target)

    def begin_move(self, slot: int, source: int, target: int) -> None:
        """The first half of a migration: the slot is MIGRATING/IMPORTING and its keys are on ``target``,
        but every node still maps it to ``source``, which answers ``ASK`` for a key it no longer has."""
        src, dst = self.client(source), self.client(target)
        try:
            dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", self.node_id(source))
            src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", self.node_id(target))
            while batch := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
                src.execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000, "KEYS", *batch)
        finally:
            src.close()
            dst.close()

    def finish_move(self, slot: int, target: int) -> None:
        target_id = self.node_id(target)
        for port in self.master_ports():
            node = self.client(port)
            try:
                node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
            finally:
                node.close()
        self.wait_ok()

    def kill(self, port: int) -> None:
        """``kill -9`` the node on ``port`` (a crash: nothing flushed, no goodbye to the others)."""
        for node in self.nodes:
            if node.port == port and node.process is not None:
                node.process.kill()
                node.process.wait()

    def stop(self) -> None:
        """Kill every node at once: a clean SHUTDOWN of a cluster master waits for its replica, seconds
        a node, and the tests' data is thrown away anyway."""
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.kill()
        for node in self.nodes:
            if node.process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(timeout=10)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
