"""The tournament chaos run (``python -m tests.chaos tournaments``, in ``make chaos``; issue 42): many
tournaments at once under one ``harbormaster serve``, every format with every game, bot fields and scripted
people (``tournament_plan``), while the fault injector ``kill -9``s fold workers, rq workers, work-horses,
the gateway and Redis. Then (``tournament_checks``): no tournament failed, every one finished, no archive
lost or replaced, every export verifies, and every result, standings row and rating equals a recomputation
from the archives; and each scripted person's story shows as it should.

Redis's rollback fault is left out by default: a rollback takes acknowledged seconds away by design
(``docs/reliability.md``); a game re-played after it to another end keeps its first archive and has the
second kept beside it as a conflict, which ``tournament verify`` reports (neither is proven). With
``--faults ...,rollback=N`` the run checks the rest: no archive replaced, none lost for good (an index entry
a rollback took back counts only if it never comes back as it was).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from services.bootstrap import build
from services.config import Settings
from services.redis_launcher import free_port
from tests.chaos.clients import Api
from tests.chaos.faults import WEIGHTS, FaultInjector
from tests.chaos.procs import Serve, play_on_serve, tidy
from tests.chaos.tournament_checks import ArchiveWatch, Audit, audit
from tests.chaos.tournament_people import Organiser, PersonClient, bearer
from tests.chaos.tournament_plan import Plan
from tests.chaos.tournament_plan import build as build_plan
from tests.chaos.tournament_stories import stories

STALL_S = 180.0
"""A tournament whose round, finished tables and games' positions have not moved for this long is stuck (a
no-show's default moves come at once; the longest wait in a plan is a 1.5 s move clock)."""
FAULTS = {kind: weight for kind, weight in WEIGHTS.items() if kind != "rollback"}
ENDED = ("finished", "cancelled", "failed")
ARCHIVE_WAIT_S = 120.0
"""After the tournaments end, how long their last games' archives may take to be verified in the index."""


class TournamentChaosConfig(msgspec.Struct, kw_only=True):
    tournaments: int = 24
    duration_s: float = 300.0
    """Faults are injected this long, or until every tournament has ended."""
    settle_s: float = 1200.0
    gap_s: tuple[float, float] = (1.0, 3.0)
    seed: int = 1
    workers: int = 2
    rq_workers: int = 2
    faults: dict[str, int] | None = None


class TournamentChaosResult(msgspec.Struct, kw_only=True):
    faults_injected: dict[str, int] = {}
    faults_survived: dict[str, int] = {}
    faults_not_found: int = 0
    tournaments: int = 0
    kinds: list[str] = []
    """Each ``format/game`` played."""
    finished: int = 0
    failed: list[str] = []
    stuck: list[str] = []
    games: int = 0
    archives_watched: int = 0
    archives_replaced: list[str] = []
    archives_lost: list[str] = []
    archives_unverified: list[str] = []
    """Games of the tournaments whose archive was never seen verified in the index."""
    verified: int = 0
    proven: int = 0
    problems: list[str] = []
    stories: list[str] = []
    """Each scripted person's story as it showed (no-show forfeited, a tie in a final …)."""
    story_problems: list[str] = []
    ties_in_finals: int = 0
    client_errors: list[str] = []
    load: list[float] = []
    """The load average (1 min) at the start, highest seen, and the end."""
    serve_exit: int | None = None
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.tournaments > 0
            and self.finished == self.tournaments
            and not self.failed
            and not self.stuck
            and not self.archives_replaced
            and not self.archives_lost
            and not self.archives_unverified
            and self.verified == self.tournaments
            and not self.problems
            and not self.story_problems
            and not self.client_errors
            and self.faults_injected == self.faults_survived
            and self.serve_exit == 0
        )

    def lines(self) -> list[str]:
        injected = sum(self.faults_injected.values())
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.faults_injected.items()))
        load = " / ".join(f"{x:.1f}" for x in self.load)
        return [
            f"faults injected: {injected} ({kinds}); survived: {sum(self.faults_survived.values())}; "
            f"no process to kill found: {self.faults_not_found} times",
            f"tournaments: {self.tournaments} ({len(set(self.kinds))} format/game kinds); finished: "
            f"{self.finished}; failed: {self.failed or 0}; stuck: {self.stuck or 0}",
            f"games: {self.games}; archives seen verified: {self.archives_watched}; never verified: "
            f"{self.archives_unverified or 0}; replaced: {self.archives_replaced or 0}; lost: {self.archives_lost or 0}",
            f"exports verified (in process and by `tournament verify FOLDER`): {self.verified} of "
            f"{self.tournaments}; results proven from archives: {self.proven}",
            f"results, standings, ratings, rounds, winners against the recomputation: "
            f"{len(self.problems)} problems {self.problems[:5] or ''}",
            f"stories: {'; '.join(self.stories)}",
            f"ties in elimination finals: {self.ties_in_finals}; story problems: {self.story_problems or 0}",
            f"client errors: {len(self.client_errors)} {self.client_errors[:3] or ''}",
            f"load average (start / highest / end): {load}",
            f"serve exit code: {self.serve_exit}; elapsed: {self.elapsed_s:.0f} s",
            "TOURNAMENT CHAOS OK" if self.ok else "TOURNAMENT CHAOS FAILED",
        ]


def run_tournament_chaos(config: TournamentChaosConfig, folder: Path | None = None) -> TournamentChaosResult:
    """Run it; the working folder (data, archives, exports, ``serve.log``) is removed unless a check failed."""
    own = folder is None
    folder = folder or Path(tempfile.mkdtemp(prefix="hm-tchaos-"))
    started = time.monotonic()
    env = {"HARBORMASTER_ARCHIVE": str(folder / "archive")}
    serve = Serve(folder, free_port(), workers=config.workers, rq_workers=config.rq_workers, env=env)
    result = TournamentChaosResult(load=[os.getloadavg()[0]] * 2)
    play_on_serve(serve, result, lambda: _play(serve, config, folder, result), started)
    result.load.append(os.getloadavg()[0])
    tidy(folder, own, result)
    return result


def _play(serve: Serve, config: TournamentChaosConfig, folder: Path, result: TournamentChaosResult) -> None:
    api = Api(serve.base)
    plans = build_plan(config.tournaments, config.seed)
    result.tournaments, result.kinds = len(plans), [f"{p.format}/{p.game}" for p in plans]
    watch = ArchiveWatch(lambda: serve.redis_url)
    organisers = [_start(api, serve.base, plan, config.seed * 100 + n) for n, plan in enumerate(plans)]
    people = [p for o in organisers for p in o.people]
    for client in [*people, *organisers]:
        client.thread.start()
    watch.thread.start()
    faults = FaultInjector(serve, config.seed, config.gap_s, config.faults or FAULTS)
    faults.start()
    _wait(api, plans, config.duration_s, result)
    faults.finish()
    result.stuck = _wait(api, plans, config.settle_s, result)
    result.faults_injected, result.faults_survived = faults.injected, faults.survived
    result.faults_not_found = faults.not_found
    newcomers = [o.newcomer for o in organisers if o.newcomer is not None]
    for client in [*people, *newcomers, *organisers]:
        client.stop.set()
        client.thread.join(timeout=30)
    watch.stop.set()
    watch.thread.join(timeout=30)
    result.client_errors += [c.error for c in [*people, *newcomers, *organisers] if c.error]
    shown = {p.tid: api.call("GET", f"/api/tournaments/{p.tid}").json() for p in plans}
    api.close()
    result.archives_unverified = _archives_verified(watch, shown)
    audits = _audit(serve, folder, plans, shown, watch, result)
    stories(plans, organisers, shown, audits, result)


def _start(api: Api, base: str, plan: Plan, seed: int) -> Organiser:
    """Create and start the tournament (paused at once when its organiser withdraws a player after round 1);
    every key is shown only in these answers."""
    created = api.call("POST", "/api/tournaments", json=plan.spec)
    if created.status_code != 201:
        raise RuntimeError(f"creating {plan.tid}: {created.status_code} {created.text[:300]}")
    body = created.json()
    organiser = Organiser(base, plan, body["organiser_key"], seed)
    keys = {p["name"]: p["key"] for p in body.get("people") or []}
    organiser.people = [PersonClient(base, plan.tid, person, keys[person.name], seed + n)
                        for n, person in enumerate(plan.people)]  # fmt: skip
    started = api.call("POST", f"/api/tournaments/{plan.tid}/start", headers=bearer(organiser.key))
    if started.status_code != 200:
        raise RuntimeError(f"starting {plan.tid}: {started.status_code} {started.text[:300]}")
    if plan.withdraw is not None:
        organiser.act("pause")
    return organiser


def _progress(api: Api, tid: str) -> tuple[str, Any]:
    """The tournament's status, and what moves while it plays: its round, finished tables and the positions
    of its current round's games."""
    info = api.call("GET", f"/api/tournaments/{tid}").json()
    rounds = info.get("rounds_played") or []
    games = [t["game_id"] for t in rounds[-1]["tables"] if not t["finished"]] if rounds else []
    seqs = tuple(api.call("GET", f"/api/games/{g}").json().get("seq") for g in games)
    return info["status"], (info["round"], info["tables_finished"], seqs)


def _wait(api: Api, plans: list[Plan], timeout_s: float, result: TournamentChaosResult) -> list[str]:
    """Until every tournament has ended, or each one still running has stood still for ``STALL_S``, or the
    time is up; returns those still running."""
    deadline = time.monotonic() + timeout_s
    moved: dict[str, tuple[Any, float]] = {}
    live = [p.tid for p in plans]
    while live:
        result.load[1] = max(result.load[1], os.getloadavg()[0])
        now = time.monotonic()
        still = []
        for tid in live:
            status, progress = _progress(api, tid)
            if status in ENDED:
                continue
            still.append(tid)
            if moved.get(tid, (None, 0.0))[0] != progress:
                moved[tid] = (progress, now)
        live = still
        stuck = [t for t in live if now - moved[t][1] >= STALL_S]
        if not live or len(stuck) == len(live) or now >= deadline:
            return live
        time.sleep(2.0)
    return []


def _archives_verified(watch: ArchiveWatch, shown: dict[str, Any]) -> list[str]:
    """Wait until every game of every tournament has its archive verified in the index (the last table's
    archive job may still run when its round is recorded); returns those that never had."""
    games = {
        t["game_id"] for info in shown.values() for r in info.get("rounds_played") or [] for t in r["tables"]
    }
    deadline = time.monotonic() + ARCHIVE_WAIT_S
    while True:
        watch.check()
        missing = sorted(games - set(watch.first))
        if not missing or time.monotonic() >= deadline:
            return missing
        time.sleep(1.0)


def _audit(
    serve: Serve,
    folder: Path,
    plans: list[Plan],
    shown: dict[str, Any],
    watch: ArchiveWatch,
    result: TournamentChaosResult,
) -> dict[str, Audit]:
    """Every tournament audited; returns each one's audit (its state and tables recomputed)."""
    services = build(Settings(redis_url=serve.redis_url, data_dir=serve.folder / "data"), serve.redis_url)
    audits: list[Audit] = []
    try:
        for plan in plans:
            audits.append(audit(services, plan.tid, folder / "exports" / plan.tid, watch, shown[plan.tid]))
    finally:
        services.redis.close()
    result.finished = sum(s["status"] == "finished" for s in shown.values())
    result.failed = [f"{t}: {s.get('failure')}" for t, s in shown.items() if s["status"] == "failed"]
    result.games = sum(a.games for a in audits)
    result.archives_watched = len(watch.first)
    result.archives_replaced, result.archives_lost = watch.replaced, watch.lost
    result.verified = sum(not a.problems and a.cli_exit == 0 for a in audits)
    result.proven = sum(a.proven for a in audits)
    result.problems = [p for a in audits for p in a.problems]
    return {a.tid: a for a in audits}
