"""One chaos run: games, clients and faults against a real ``harbormaster serve``, then the checks.

Bot games of all three kinds, games where seat 0 is an HTTP player and games where seat 0 plays over its
WebSocket (the other seats bots), each watched by a spectator's WebSocket. While they play, the fault injector ``kill -9``s fold workers, rq
workers, rq work-horses, the gateway and the embedded Redis (``serve`` restarts each). Then, from the
store: every command a client saw accepted has exactly one result (none lost, none applied twice), no
command id of any game has two results, every game finished (none stuck), every game's export verifies,
and every spectator saw every event exactly once, in order, across its reconnects.

With the "rollback" fault (Redis restarted on its append-only file of a few seconds earlier) a command
acknowledged in the seconds taken away may be lost (counted apart: the documented window), and a client's
events past the store's are forgotten when it is sent the store's view; afterwards every client's last view
must equal the store's.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import msgspec

from events.store import EventStore
from services.audit.verify import verify_lines
from services.bootstrap import build
from services.config import Settings
from services.export import export_lines
from services.redis_launcher import free_port
from tests.chaos.clients import Api, Player, Seen, SocketPlayer, Watcher
from tests.chaos.faults import FaultInjector
from tests.chaos.procs import Serve, play_on_serve, tidy

STALL_S = 60.0
"""A live game without a new event for this long is stuck (a bot turn takes milliseconds; a Redis restart
and the reconciler's pass, seconds)."""

REWIND_S = 5.0
"""After the last rollback, time for the gateway to find its feeds ahead of the store and send the views."""
FINAL_FRAMES_S = 15.0
"""Time for every WebSocket client to get its game's last frames once the games have ended."""

GAME_KINDS = (("elcapitan", 2), ("manila", 3), ("eic", 2), ("elcapitan", 3), ("manila", 4), ("eic", 3))
"""Cycled through for the games of a run: the short run's first three are the quickest to play out."""


class ChaosConfig(msgspec.Struct, kw_only=True):
    bot_games: int = 12
    http_games: int = 3
    ws_games: int = 3
    duration_s: float = 120.0
    """Faults are injected this long, or until every game has ended."""
    settle_s: float = 900.0
    """After the faults stop, the games have at most this long to end (a slow machine needs long); a game
    that stands still for ``STALL_S`` is stuck, and the wait ends when all live games are."""
    gap_s: tuple[float, float] = (1.0, 3.0)
    seed: int = 1
    workers: int = 2
    rq_workers: int = 2
    kinds: int = len(GAME_KINDS)
    """How many of ``GAME_KINDS`` to cycle through."""
    faults: dict[str, int] | None = None
    """The faults to inject and their weights (``faults.WEIGHTS`` when ``None``)."""


class ChaosResult(msgspec.Struct, kw_only=True):
    faults_injected: dict[str, int] = {}
    faults_not_found: int = 0
    """How often a fault found no process of its kind to kill (a work-horse between jobs) and was tried again."""
    faults_survived: dict[str, int] = {}
    games: int = 0
    finished: int = 0
    stuck: list[str] = []
    unfinished: list[str] = []
    """Live games still moving when ``settle_s`` ran out (not stuck, but not shown to end either)."""
    verified: int = 0
    verify_failures: list[str] = []
    commands: int = 0
    """Command results recorded in all games (bots' and players')."""
    accepted: int = 0
    """Commands an HTTP player was told were applied, or accepted and pending; and commands a WebSocket
    player got an ``applied`` result frame for."""
    applied: int = 0
    rejected_later: int = 0
    """Accepted as pending, then refused by the rules (the game moved on meanwhile): settled, not lost."""
    lost: int = 0
    lost_in_rollback: int = 0
    """Acknowledged in the seconds a rollback took away, and gone with them: the documented window."""
    rollbacks: int = 0
    doubled: int = 0
    watchers: int = 0
    reconnects: int = 0
    events_missed: int = 0
    events_doubled: int = 0
    resyncs: int = 0
    rewinds: int = 0
    """Frames that took a client back to the store's truth, below what it had been sent."""
    views_checked: int = 0
    views_differing: list[str] = []
    """Clients whose last view is not the store's view of the game for them."""
    client_errors: list[str] = []
    serve_exit: int | None = None
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.lost == 0
            and self.doubled == 0
            and not self.stuck
            and not self.unfinished
            and not self.verify_failures
            and self.verified == self.games
            and self.events_missed == 0
            and self.events_doubled == 0
            and not self.views_differing
            and self.views_checked == self.watchers
            and not self.client_errors
            and self.faults_injected == self.faults_survived
            and self.serve_exit == 0
        )

    def lines(self) -> list[str]:
        injected, survived = sum(self.faults_injected.values()), sum(self.faults_survived.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.faults_injected.items()))
        return [
            f"faults injected: {injected} ({kinds}); survived: {survived}; "
            f"no process to kill found: {self.faults_not_found} times",
            f"games: {self.games}; finished: {self.finished}; stuck (no event for {STALL_S:.0f} s): "
            f"{len(self.stuck)} {self.stuck or ''}; still moving when the time ran out: {len(self.unfinished)}",
            f"games verified: {self.verified} of {self.games} {self.verify_failures or ''}",
            f"commands recorded (bots and players): {self.commands}",
            f"commands accepted by HTTP and WebSocket players: {self.accepted}; applied: {self.applied}; "
            f"rejected later by the rules: {self.rejected_later}; lost: {self.lost}; doubled: {self.doubled}; "
            f"lost in the seconds {self.rollbacks} rollbacks took away: {self.lost_in_rollback}",
            f"websocket clients (spectators and players): {self.watchers}; reconnects: {self.reconnects}; events missed: "
            f"{self.events_missed}; seen twice: {self.events_doubled}; resyncs: {self.resyncs}; "
            f"taken back to the store's truth: {self.rewinds}",
            f"last views equal to the store's: {self.views_checked - len(self.views_differing)} of "
            f"{self.watchers} {self.views_differing[:3] or ''}",
            f"client errors: {len(self.client_errors)} {self.client_errors[:3] or ''}",
            f"serve exit code: {self.serve_exit}; elapsed: {self.elapsed_s:.0f} s",
            "CHAOS OK" if self.ok else "CHAOS FAILED",
        ]


def run_chaos(config: ChaosConfig, folder: Path | None = None) -> ChaosResult:
    """Run it; the working folder (data, ``serve.log``) is removed afterwards unless a check failed."""
    own = folder is None
    folder = folder or Path(tempfile.mkdtemp(prefix="hm-chaos-"))
    started = time.monotonic()
    serve = Serve(folder, free_port(), workers=config.workers, rq_workers=config.rq_workers)
    result = ChaosResult()
    play_on_serve(serve, result, lambda: _play(serve, config, result), started)
    tidy(folder, own, result)
    return result


def _play(serve: Serve, config: ChaosConfig, result: ChaosResult) -> None:
    api = Api(serve.base)
    games, players, sockets = _create_games(api, serve, config)
    watchers = [Watcher(serve.base.replace("http", "ws", 1), game_id) for game_id in games]
    for client in [*watchers, *players, *sockets]:
        client.thread.start()
    faults = FaultInjector(serve, config.seed, config.gap_s, config.faults)
    faults.start()
    _wait_for_games(api, games, config.duration_s)
    faults.finish()
    if faults.rollbacks:
        time.sleep(REWIND_S)
    stuck, moving = _wait_for_games(api, games, config.settle_s)
    viewers: list[Seen] = [*watchers, *sockets]
    deadline = time.monotonic() + FINAL_FRAMES_S
    while not all(v.finished for v in viewers) and time.monotonic() < deadline:
        time.sleep(0.2)
    for client in [*players, *watchers, *sockets]:
        client.stop.set()
    for client in [*players, *watchers, *sockets]:
        client.thread.join(timeout=30)
    api.close()
    result.faults_injected, result.faults_survived = faults.injected, faults.survived
    result.faults_not_found = faults.not_found
    result.games, result.stuck, result.unfinished = len(games), stuck, moving
    result.finished = len(games) - len(stuck) - len(moving)
    result.client_errors += [f"{p.game_id}: {p.error}" for p in [*players, *sockets] if p.error]
    _check_store(serve, games, players, sockets, watchers, faults, result)


def _create_games(
    api: Api, serve: Serve, config: ChaosConfig
) -> tuple[list[str], list[Player], list[SocketPlayer]]:
    """Every game is created before the first fault: a seat's token is shown only in the answer."""
    games: list[str] = []
    players: list[Player] = []
    sockets: list[SocketPlayer] = []
    for n in range(config.bot_games + config.http_games + config.ws_games):
        game, seats = GAME_KINDS[n % config.kinds]
        human = n >= config.bot_games
        bots = {str(s): ("greedy" if s % 2 else "random") for s in range(seats) if not (human and s == 0)}
        response = api.call("POST", "/api/games", json={"game": game, "seats": seats, "bots": bots})
        if response.status_code != 201:
            raise RuntimeError(f"creating a {game} game: {response.status_code} {response.text}")
        body = response.json()
        games.append(body["game_id"])
        if human:
            token = next(s["token"] for s in body["seats"] if s["seat"] == 0)
            args = (serve.base, body["game_id"], 0, token, config.seed * 1000 + n)
            if n < config.bot_games + config.http_games:
                players.append(Player(*args))
            else:
                sockets.append(SocketPlayer(*args))
    return games, players, sockets


def _wait_for_games(api: Api, games: list[str], timeout_s: float) -> tuple[list[str], list[str]]:
    """Wait until every game has ended, every live one has stood still for ``STALL_S``, or the time is
    up; returns the live games that stood still (stuck) and those still moving."""
    deadline = time.monotonic() + timeout_s
    moved: dict[str, tuple[int, float]] = {}
    live = list(games)
    while live:
        now = time.monotonic()
        still_live = []
        for game_id in live:
            state = api.call("GET", f"/api/games/{game_id}").json()
            if state["status"] == "finished":
                continue
            still_live.append(game_id)
            if moved.get(game_id, (None, 0.0))[0] != state["seq"]:
                moved[game_id] = (state["seq"], now)
        live = still_live
        stuck = [g for g in live if now - moved[g][1] >= STALL_S]
        if not live or len(stuck) == len(live) or now >= deadline:
            return stuck, [g for g in live if g not in stuck]
        time.sleep(2.0)
    return [], []


def _check_store(
    serve: Serve,
    games: list[str],
    players: list[Player],
    sockets: list[SocketPlayer],
    watchers: list[Watcher],
    faults: FaultInjector,
    result: ChaosResult,
) -> None:
    url = serve.redis_url
    services = build(Settings(redis_url=url, data_dir=serve.folder / "data"), url)
    store = services.store
    for game_id in games:
        records = store.records(game_id)
        result.commands += len(records)
        ids = [r.result_field for r in records]  # a command id is its sender's: (sender, id) is the key
        result.doubled += len(ids) - len(set(ids))
        report = verify_lines(export_lines(store, game_id), store.games)
        finished = store.meta(game_id).status == "finished"
        if report.first_problem() is None and (report.decisions_checked or not finished):
            result.verified += 1
        else:
            result.verify_failures.append(f"{game_id}: {report.first_problem()}")
    result.rollbacks = len(faults.rollbacks)
    for player in players:
        for command_id, told in player.accepted.items():
            record = store.result(player.game_id, command_id, player.seat)
            result.accepted += 1
            if record is not None and record.status == "applied":
                result.applied += 1
            elif record is not None and told == "pending":
                result.rejected_later += 1
            else:  # never recorded, or told "applied" and recorded as something else
                _lost(result, faults, player.accepted_at[command_id])
    for socket in sockets:
        for command_id, told in socket.accepted.items():
            record = store.result(socket.game_id, command_id, socket.seat)
            if told == "applied":
                result.accepted += 1
                if record is not None and record.status == "applied":
                    result.applied += 1
                else:
                    _lost(result, faults, socket.accepted_at[command_id])
        result.lost += socket.pending is not None  # sent, never answered
    for watcher in [*watchers, *sockets]:
        _check_viewer(store, watcher, result)
    services.redis.close()


def _lost(result: ChaosResult, faults: FaultInjector, told_at: float) -> None:
    """An acknowledged command the store does not have: in a rollback's seconds, the documented loss."""
    if faults.in_rollback(told_at):
        result.lost_in_rollback += 1
    else:
        result.lost += 1


def _check_viewer(store: EventStore, viewer: Seen, result: ChaosResult) -> None:
    """Every event once, in order, across reconnects (those a rollback took away forgotten, those a resync
    stood for covered), and a last view equal to the store's view of the game for this viewer."""
    loaded = store.load(viewer.game_id)
    expected = set(range((viewer.start_seq or 0) + 1, loaded.seq + 1))
    result.watchers += 1
    result.reconnects += max(0, viewer.connects - 1)
    result.resyncs += viewer.resyncs
    result.rewinds += viewer.rewinds
    result.events_missed += len(expected - set(viewer.seqs) - viewer.covered)
    result.events_doubled += len(viewer.seqs) - len(set(viewer.seqs))
    truth = msgspec.json.decode(msgspec.json.encode(loaded.game.view(loaded.state, viewer.seat)))
    result.views_checked += 1
    if (viewer.view_seq, viewer.view) != (loaded.seq, truth):
        result.views_differing.append(
            f"{viewer.game_id} seat {viewer.seat}: seq {viewer.view_seq}/{loaded.seq}"
        )
