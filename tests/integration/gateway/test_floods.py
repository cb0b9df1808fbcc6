"""Issue 31, findings 2, 7 and 9: one client must not freeze or grow the gateway. Each attack runs against
the real stack while a player of another game keeps moving; that player's moves must go on being applied
while the attack lasts (every one applied, none refused, at least ``KEPT_PACE`` of them answered before the
attack ends; the median and slowest times only print, as a timed assertion fails on a loaded machine, not
on a frozen gateway: ``make bench`` measures speed), and the attacker must be cut off.

Attackers run in processes of their own (``attacks.py``), as they would on another machine.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from services.config import Limits
from services.gateway.context import Gateway
from services.gateway.feeds.viewer import NOTES_LIMIT
from services.gateway.wire.close_codes import CLOSE_FLOODED, CLOSE_TOO_BIG
from tests.support.attacks import BIG, PING_TEXT, close_code, masked, open_socket, read_rest
from tests.support.client import RawResponses, create, post_command, wait_until
from tests.support.harness import ServerThread, running_stack

GUARDED = Limits(sockets_per_address=0, commands_per_token=0, commands_per_address=0, header_timeout_s=1.0)
"""The default frame budget (50 a second, bursts of 250) and a one-second header deadline; no command
rates (the measuring player moves as fast as it can)."""
ROOT = Path(__file__).resolve().parents[3]
KEPT_PACE = 3
"""Moves of another game answered during an attack (which lasts a second or more): a gateway the attack
froze answers none or one; a slow machine still answers several (measured idle: 22 to 70)."""


def gateway(server: ServerThread) -> Gateway:
    state: Gateway = server.app.state.gateway
    return state


def rss_mb() -> float:
    """This process's resident memory: the gateway under test runs in one of its threads."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class Player:
    """A player of another game moving over HTTP in a thread, each move timed until it is answered."""

    def __init__(self, server: ServerThread) -> None:
        self.api = httpx.Client(base_url=server.base, timeout=30)
        game = create(self.api, "race", 2)
        self.game_id, self.token = game["game_id"], game["seats"][0]["token"]
        self.latencies: list[float] = []
        self.refused: list[str] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        note = {"command": {"type": "Note", "text": "still here"}}
        while not self.stopping.is_set():
            started = time.perf_counter()
            response = post_command(self.api, self.game_id, self.token, note)
            if response.status_code != 200 or response.json()["status"] != "applied":
                self.refused.append(response.text)  # asserted by the test's thread: one here would be lost
                return
            self.latencies.append(time.perf_counter() - started)
            time.sleep(0.02)

    @contextmanager
    def moving(self) -> Iterator[list[float]]:
        self.thread.start()
        try:
            yield self.latencies
        finally:
            self.stopping.set()
            self.thread.join(30)
            self.api.close()
        assert not self.refused, f"a move in another game was refused: {self.refused}"


def attack(*args: Any) -> subprocess.Popen[str]:
    """An attacker started and ready (``attacks.py``), waiting for ``go``."""
    command = [sys.executable, "-m", "tests.support.attacks", *map(str, args)]
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def go(*processes: subprocess.Popen[str]) -> None:
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def report(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    result: dict[str, Any] = json.loads(out)
    return result


def assert_kept_its_pace(latencies: list[float], what: str) -> None:
    """The other game went on during the attack: ``Player.moving`` asserts that none of its moves was
    refused; here, that enough were answered before the attack ended. The times print only (no timed
    assertion: the median was < 100 ms on an idle machine and over it at load 17)."""
    median, slowest = statistics.median(latencies or [0.0]), max(latencies or [0.0])
    print(f"\n{what}: {len(latencies)} moves in another game, median {median * 1000:.1f} ms, "
          f"slowest {slowest * 1000:.1f} ms")  # fmt: skip
    assert len(latencies) >= KEPT_PACE, f"the other game's player made {len(latencies)} moves during {what}"


@pytest.fixture
def guarded(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, limits=GUARDED) as server:
        yield server


# --- finding 2: pings and frames without end ----------------------------------------------------------------


def test_a_socket_over_its_frame_budget_is_closed_1008(guarded: ServerThread) -> None:
    gid = create(httpx.Client(base_url=guarded.base), "race", 2)["game_id"]
    sock = open_socket(guarded.port, f"/ws/games/{gid}")
    time.sleep(0.3)  # the socket's task reads frames by now
    sock.sendall(masked(PING_TEXT) * 300)  # the budget: 250 at once
    received = read_rest(sock)
    sock.close()
    assert close_code(received) == CLOSE_FLOODED
    assert b"too many frames" in received
    wait_until(lambda: gateway(guarded).stats.ws_refused.get(CLOSE_FLOODED) == 1)  # in /metrics
    assert received.count(b'{"type":"pong"}') <= 250


def test_a_spectator_flooding_pings_is_cut_off_and_other_games_keep_their_pace(guarded: ServerThread) -> None:
    gid = create(httpx.Client(base_url=guarded.base), "race", 2)["game_id"]
    player = Player(guarded)
    floods = [attack("ping-flood", guarded.port, gid, 3, kind) for kind in ("text", "control", "text")]
    before = rss_mb()
    with player.moving() as latencies:
        time.sleep(0.3)
        latencies.clear()  # from here on, the moves are made under attack
        go(*floods)
        reports = [report(flood) for flood in floods]
        grown = rss_mb() - before
    wait_until(lambda: gateway(guarded).open_websockets == 0)
    connections = sum(r["connections"] for r in reports)
    cut = [t for r in reports for t in r["cut_after_s"]]
    print(f"\n3 flooders for 3 s: {connections} sockets, {sum(r['frames'] for r in reports)} frames sent, each cut "
          f"off after {min(cut):.3f}-{max(cut):.3f} s (as they saw it); the gateway grew {grown:.1f} MB")  # fmt: skip
    assert len(cut) >= connections - 3, "a flooding socket was not cut off"  # the last ones may meet the end
    assert max(cut) < 2
    assert CLOSE_FLOODED in [c for r in reports for c in r["close_codes"]]
    assert grown < 32, f"the gateway grew by {grown:.0f} MB"  # issue 31: from 59 to 180 MB
    assert_kept_its_pace(latencies, "3 ping floods")


def test_a_client_that_never_reads_its_pongs_is_dropped_with_its_answers_bounded(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=0, commands_per_token=0, commands_per_address=0, frames_per_socket=0)
    with running_stack(redis_url, limits=limits) as server:
        gid = create(httpx.Client(base_url=server.base), "race", 2)["game_id"]
        sock = open_socket(server.port, f"/ws/games/{gid}", rcvbuf=4096)
        wait_until(lambda: gateway(server).open_websockets == 1)
        for connection in server.server.server_state.connections:  # writes block after a few kilobytes,
            raw = connection.transport.get_extra_info("socket")  # as over a real network
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        sent = 0
        try:
            while gateway(server).open_websockets == 1 and sent < 50 * NOTES_LIMIT * 100:
                sock.sendall(masked(PING_TEXT) * 100)
                sent += 100
        except OSError:
            pass
        wait_until(lambda: gateway(server).open_websockets == 0)
        sock.close()
        stats = gateway(server).stats
        taken = stats.ws_messages["fast"] + stats.ws_messages["queued"]
        print(f"\nnon-reading pinger dropped after the gateway took {taken} of its pings ({sent} sent)")
        assert stats.ws_stalled == 1
        # What it could hold: 64 KiB of pongs unsent, NOTES_LIMIT answers waiting, a read's worth of pings.
        assert taken < (64 * 1024 + 256 * 1024) // len(PING_TEXT) + NOTES_LIMIT


# --- finding 7: oversized frames ------------------------------------------------------------------------


def test_a_frame_announced_over_16_kib_is_refused_from_its_header(guarded: ServerThread) -> None:
    gid = create(httpx.Client(base_url=guarded.base), "race", 2)["game_id"]
    for length in (BIG, 20_000):  # a 64-bit and a 16-bit length
        sock = open_socket(guarded.port, f"/ws/games/{gid}")
        time.sleep(0.2)
        sock.sendall(masked(b"x" * 1024, length=length))  # the rest never comes
        received = read_rest(sock)
        sock.close()
        assert close_code(received) == CLOSE_TOO_BIG, length


def test_unfinished_16_mib_frames_hold_no_memory_and_other_games_keep_their_pace(
    guarded: ServerThread,
) -> None:
    gid = create(httpx.Client(base_url=guarded.base), "race", 2)["game_id"]
    player = Player(guarded)
    attacker = attack("big-frames", guarded.port, gid, 8)
    before = rss_mb()
    with player.moving() as latencies:
        time.sleep(0.3)
        latencies.clear()  # from here on, the moves are made under attack
        go(attacker)
        result = report(attacker)
        grown = rss_mb() - before
    print(f"\n8 unfinished 16 MiB frames: sent {result['sent']} bytes, gateway grew {grown:.1f} MB")
    assert max(result["sent"]) < 8 * 1024 * 1024, "a socket was read on long after its frame's header"
    assert grown < 32, f"the gateway grew by {grown:.0f} MB"
    wait_until(lambda: gateway(guarded).open_websockets == 0)
    assert_kept_its_pace(latencies, "8 unfinished 16 MiB frames")


# --- finding 9: connections that never finish their headers ----------------------------------------------


def test_connections_that_never_finish_their_headers_are_closed_after_the_timeout(
    guarded: ServerThread,
) -> None:
    player = Player(guarded)
    with player.moving() as latencies:
        time.sleep(0.3)
        latencies.clear()  # from here on, the moves are made under attack
        started = time.monotonic()
        held = [socket.create_connection(("127.0.0.1", guarded.port)) for _ in range(200)]
        for i, sock in enumerate(held):
            if i % 2:  # half of them send nothing at all
                sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for sock in held:
            sock.settimeout(10)
            assert sock.recv(1024) == b"", "a header-less connection was answered or kept"
            sock.close()
        closed_after = time.monotonic() - started
    print(f"\n200 header-less connections closed after {closed_after:.2f} s")
    assert 0.9 <= closed_after < 5
    assert_kept_its_pace(latencies, "200 header-less connections")


def post_head(length: int) -> bytes:
    return (
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {length}\r\n\r\n".encode()
    )


def test_a_request_within_its_deadlines_and_a_kept_alive_connection_are_served(guarded: ServerThread) -> None:
    body = json.dumps({"game": "race", "seats": 2}).encode()
    with socket.create_connection(("127.0.0.1", guarded.port)) as sock:
        time.sleep(0.6)  # headers within the second after opening, the body within the second after them:
        sock.sendall(post_head(len(body)))  # 1.4 s in all, and answered
        for part in (body[:5], body[5:]):
            time.sleep(0.4)
            sock.sendall(part)
        sock.settimeout(10)
        answers = RawResponses(sock)
        assert answers.status_line().startswith(b"HTTP/1.1 201")
        time.sleep(0.5)  # idle, within the idle timeout: the next request is answered on it
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answers.status_line().startswith(b"HTTP/1.1 200")
        silent = time.monotonic()
        assert answers.data == b"" and sock.recv(4096) == b""  # then closed, as idle
        assert time.monotonic() - silent < GUARDED.idle_timeout_s + 2


def test_a_body_that_stops_coming_is_cut_off(guarded: ServerThread) -> None:
    before = gateway(guarded).stats.client_disconnects
    with socket.create_connection(("127.0.0.1", guarded.port)) as sock:
        sock.sendall(post_head(100) + b'{"game":')
        sock.settimeout(10)
        started = time.monotonic()
        assert sock.recv(4096) == b""
        assert time.monotonic() - started < 3
    wait_until(lambda: gateway(guarded).stats.client_disconnects == before + 1)  # its handler saw it go
