"""Moves over the WebSocket, side by side with boardgame.io (issue 19), in one run, alternating.

Both sides play the same two-seat counter micro-game (``tests/support/counter_game.py`` here,
``tests/bench/boardgameio/game.js`` there) with the same load: per game two seat clients in Node.js, each
moving as soon as a pushed frame says it is its turn. boardgame.io keeps its games in memory; Harbormaster
appends every move to Redis with AOF on (``appendfsync everysec``), through one gateway and one fold worker.
Prints moves/s, p50/p99 of a two-move round, their ratio, and the gateway's and worker's CPU per move.
``BENCH_MOVES_SECONDS`` (default 10), ``BENCH_MOVES_ROUNDS`` (pairs per size, default 2) and
``BENCH_MOVES_GAMES`` (default ``50,200``) set the run; each size ends with its pairs' ratios and their median;
``BENCH_MOVES_GATEWAYS=N`` plays through N gateway processes sharing the port (``--reuse-port``), and then
leaves out the figures of one gateway (memory per game, fan-out); ``BENCH_MOVES_SPECTATORS`` (default
``1000,5000``; ``0``: none) sets the fan-out runs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from services.redis_launcher import EmbeddedRedis
from tests.bench.bench_gateway import _rss_mb, _spawn, _wait_ready
from tests.bench.load_generator import _process_cpu_seconds
from tests.bench.platform_probe import _cpu_counters
from tests.support.harness import free_port

HERE = Path(__file__).parent
PEER_SCRIPT = Path(__file__).resolve().parent / "boardgameio" / "run.sh"
ROUNDS = 2
"""Pairs (boardgame.io, then Harbormaster) per size unless ``BENCH_MOVES_ROUNDS`` says otherwise: this
machine's speed moves by ±8 % between runs, so one pair's ratio alone says little."""
FANOUT_MOVES = 40
FANOUT_INTERVAL_S = 0.1


def _machine_busy_s() -> float:
    """CPU time the whole machine has spent busy (every core, every process), from ``/proc/stat``."""
    fields = _cpu_counters().get("cpu", [0] * 8)
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def _games(base: str, count: int) -> list[dict[str, Any]]:
    games = []
    with httpx.Client(base_url=base, timeout=30) as api:
        for _ in range(count):
            body = api.post(
                "/api/games", json={"game": "counter", "seats": 2, "options": {"limit": 10**9}}
            ).json()
            games.append({"game_id": body["game_id"], "tokens": [s["token"] for s in body["seats"]]})
    return games


def _ours(base: str, ws_base: str, games: int, seconds: float, pids: dict[str, int]) -> dict[str, Any]:
    folder = subprocess.run([HERE / "ws_moves" / "install.sh"], capture_output=True, text=True, check=True)
    spec = Path(tempfile.mkstemp(suffix=".json")[1])
    spec.write_text(json.dumps(_games(base, games)))
    before = {name: _process_cpu_seconds(pid) for name, pid in pids.items()}
    busy = _machine_busy_s()
    load = subprocess.run(
        ["node", str(Path(folder.stdout.strip()) / "load.js"), str(spec), str(seconds)],
        capture_output=True, text=True, timeout=seconds + 120, env={**os.environ, "HM_WS": ws_base},
    )  # fmt: skip
    result: dict[str, Any] = json.loads(load.stdout.strip().splitlines()[-1])
    moves = max(1, result["moves_per_s"] * (seconds + 2))
    result["machine_us_per_move"] = 1e6 * (_machine_busy_s() - busy) / moves
    for name, pid in pids.items():
        result[f"{name}_us_per_move"] = 1e6 * (_process_cpu_seconds(pid) - before[name]) / moves
        result[f"{name}_rss_mb"] = _rss_mb(pid)
    return result


def _fanout(
    base: str, ws_base: str, gateway_pid: int, spectators: int, moves: int, interval_s: float
) -> dict[str, float]:
    """One counter game watched by ``spectators`` sockets of a Node.js process while two seats move every
    ``interval_s``: for each event, the time from its append to the 1st and to the last spectator."""
    folder = Path(
        subprocess.run([HERE / "ws_moves" / "install.sh"], capture_output=True, text=True).stdout.strip()
    )
    game = _games(base, 1)[0]
    rss_before = _rss_mb(gateway_pid)
    watch = subprocess.Popen(
        ["node", str(folder / "watch.js"), f"{ws_base}/ws/games/{game['game_id']}", str(spectators)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watch.stdout is not None and watch.stdin is not None
    connected = json.loads(watch.stdout.readline())["ready"]
    time.sleep(1)
    kb_per_socket = 1024 * (_rss_mb(gateway_pid) - rss_before) / max(1, connected)
    cpu_before = _process_cpu_seconds(gateway_pid)
    with httpx.Client(base_url=base, timeout=30) as api:
        for move in range(moves):
            token = game["tokens"][move % 2]
            api.post(f"/api/games/{game['game_id']}/commands?wait=true", json={"command": {"type": "Move"}},
                     headers={"Authorization": f"Bearer {token}"})  # fmt: skip
            time.sleep(interval_s)
        time.sleep(2)
        cpu_us = 1e6 * (_process_cpu_seconds(gateway_pid) - cpu_before) / moves
        appended = {
            e["seq"]: e["ts_ms"] for e in api.get(f"/api/games/{game['game_id']}/events").json()["events"]
        }
    watch.stdin.write("report\n")
    watch.stdin.flush()
    report = json.loads(watch.stdout.readline())
    watch.wait(timeout=30)
    events = {int(seq): e for seq, e in report["events"].items() if int(seq) in appended}
    first = sorted(e["first"] - appended[seq] for seq, e in events.items())
    last = sorted(e["last"] - appended[seq] for seq, e in events.items())
    delivered = sum(e["count"] for e in events.values())
    return {
        "first_median": first[len(first) // 2], "last_median": last[len(last) // 2], "last_max": last[-1],
        "last_by_seq": {seq: round(e["last"] - appended[seq]) for seq, e in sorted(events.items())},
        "delivered": delivered / max(1, len(events) * spectators), "resyncs": report["resyncs"],
        "open": report["open"], "cpu_us_per_event": cpu_us, "kb_per_socket": kb_per_socket,
    }  # fmt: skip


def _memory_per_game(base: str, pids: dict[str, int], games: int) -> dict[str, float]:
    """Resident memory per live game in the gateway (its feed) and the worker (its cached state): ``games``
    counter games created and moved once each over HTTP, RSS before and after."""
    before = {name: _rss_mb(pid) for name, pid in pids.items()}
    created = _games(base, games)
    with httpx.Client(base_url=base, timeout=30) as api:
        for game in created:
            api.post(f"/api/games/{game['game_id']}/commands?wait=true", json={"command": {"type": "Move"}},
                     headers={"Authorization": f"Bearer {game['tokens'][0]}"})  # fmt: skip
    time.sleep(1)
    return {name: 1024 * (_rss_mb(pid) - before[name]) / games for name, pid in pids.items()}


class _FreshGateway:
    """A gateway process of its own for one measurement: what another measurement left in a gateway (1,000
    games watched, and read, until idle for 30 s; a heap grown by earlier runs, which new sockets reuse
    without growing the RSS) would skew it."""

    def __init__(self, url: str) -> None:
        self.port = free_port()
        self.base, self.ws_base = f"http://127.0.0.1:{self.port}", f"ws://127.0.0.1:{self.port}"
        self.process = _spawn(["gateway", "--port", str(self.port)], url)

    def __enter__(self) -> _FreshGateway:
        _wait_ready(self.base)
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


def _print_memory_per_game(url: str, worker_pid: int) -> None:
    with _FreshGateway(url) as gateway:
        memory = _memory_per_game(gateway.base, {"gateway": gateway.process.pid, "worker": worker_pid}, 1000)
    print(f"memory per live game: gateway {memory['gateway']:.1f} kB, worker {memory['worker']:.1f} kB "
          "(1,000 counter games, RSS before and after)")  # fmt: skip


def _print_fanout(url: str, spectators: int) -> None:
    with _FreshGateway(url) as gateway:
        fan = _fanout(
            gateway.base, gateway.ws_base, gateway.process.pid, spectators, FANOUT_MOVES, FANOUT_INTERVAL_S
        )
    print(f"fan-out, one game watched by {spectators:,} spectators ({fan['open']:,} connected), a move every "
          f"{FANOUT_INTERVAL_S * 1000:.0f} ms: append -> 1st median {fan['first_median']:.1f} ms; -> "
          f"{spectators:,}th median {fan['last_median']:.1f} ms, max {fan['last_max']:.1f} ms; frames "
          f"delivered {100 * fan['delivered']:.1f} %, resyncs {fan['resyncs']}; gateway "
          f"{fan['cpu_us_per_event'] / spectators:.1f} us CPU per frame, "
          f"{fan['kb_per_socket']:.1f} kB per open socket")  # fmt: skip


def _peer_script() -> Path | None:
    """The boardgame.io harness, ``tests/bench/boardgameio/run.sh`` (it needs Node.js and npm)."""
    return PEER_SCRIPT if PEER_SCRIPT.exists() else None


def _peer(games: int, seconds: float) -> dict[str, Any] | None:
    script = _peer_script()
    if script is None:
        return None
    busy = _machine_busy_s()
    run = subprocess.run(
        [str(script), str(games), str(int(seconds))], capture_output=True, text=True, timeout=300
    )
    busy = _machine_busy_s() - busy  # with its server's start (~0.3 s of CPU): a little against it
    lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
    if not lines:
        print(f"  boardgame.io gave no figure (exit {run.returncode}): {run.stderr.strip()[-300:]}")
        return None
    result: dict[str, Any] = json.loads(lines[-1])
    result["machine_us_per_move"] = 1e6 * busy / max(1, result["moves_per_s"] * seconds)
    return result


def _line(result: dict[str, Any]) -> str:
    """Moves/s, a two-move round's p50/p99, and the whole machine's CPU per move (servers, Redis, clients)."""
    return (
        f"{result['moves_per_s']:>7,} moves/s  p50 {result['p50_ms']:>4} ms  p99 {result['p99_ms']:>4} ms"
        f"  machine {result['machine_us_per_move']:>4.0f} us CPU/move"
    )


def main() -> None:
    seconds = float(os.environ.get("BENCH_MOVES_SECONDS", 10))
    sizes = [int(n) for n in os.environ.get("BENCH_MOVES_GAMES", "50,200").split(",")]
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-moves-")))
    url = server.start()
    port = free_port()
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    count = int(os.environ.get("BENCH_MOVES_GATEWAYS", 1))
    shared = ["--reuse-port"] if count > 1 else []
    gateways = [_spawn(["gateway", "--port", str(port), *shared], url) for _ in range(count)]
    worker = _spawn(["worker"], url)
    assert server.process is not None
    pids = {f"gateway{i}": g.pid for i, g in enumerate(gateways)} | {
        "worker": worker.pid,
        "redis": server.process.pid,
    }
    try:
        _wait_ready(base)
        if count > 1:
            print(f"{count} gateway processes sharing port {port} (SO_REUSEPORT)")
        else:
            _print_memory_per_game(url, worker.pid)
        for games in sizes if sizes != [0] else []:
            print(f"{games} concurrent games, {seconds:.0f} s each, alternating:")
            ratios: list[float] = []
            for _ in range(int(os.environ.get("BENCH_MOVES_ROUNDS", ROUNDS))):
                peer = _peer(games, seconds)
                print(f"  boardgame.io 0.50.2   {_line(peer) if peer else 'no figure'}")
                ours = _ours(base, ws_base, games, seconds, pids)
                if peer:
                    ratios.append(ours["moves_per_s"] / peer["moves_per_s"])
                ratio = f"  ratio {ratios[-1]:.2f}" if peer else ""
                print(f"  Harbormaster (WS)     {_line(ours)}{ratio}")
                cpu = sum(ours[f"gateway{i}_us_per_move"] for i in range(count))
                rss = sum(ours[f"gateway{i}_rss_mb"] for i in range(count))
                print(f"      gateway {cpu:.0f} us CPU/move, RSS {rss:.0f} MB;"
                      f" worker {ours['worker_us_per_move']:.0f} us CPU/move, RSS {ours['worker_rss_mb']:.0f} MB;"
                      f" redis-server {ours['redis_us_per_move']:.0f} us CPU/move;"
                      f" refused {ours['refused']}, errors {ours['errors']}")  # fmt: skip
                time.sleep(1)
            if ratios:
                print(f"  {games} games: ratios {', '.join(f'{r:.2f}' for r in ratios)}; median "
                      f"{statistics.median(ratios):.2f}, {sum(r >= 2 for r in ratios)} of {len(ratios)} at 2x or more")  # fmt: skip
        audiences = [
            int(n) for n in os.environ.get("BENCH_MOVES_SPECTATORS", "1000,5000").split(",") if n != "0"
        ]
        for spectators in audiences if count == 1 else []:
            _print_fanout(url, spectators)
    finally:
        for proc in (*gateways, worker):
            proc.terminate()
            proc.wait(timeout=20)
        server.stop()


if __name__ == "__main__":
    main()
