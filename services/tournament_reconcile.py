"""``serve``'s pass over every tournament: reconcile the running and paused ones, and end the games of
cancelled ones still played (split from ``services/tournament_service.py``, the verbs on one tournament)."""

from __future__ import annotations

import structlog

from events.tournament_store import FAILED_FIELD, TournamentStore, tournament_key
from services.bootstrap import Services
from services.tournament_service import list_ids, reconcile
from workers.jobs.clock_due import GAMES_ENDED, end_cancelled
from workers.jobs.failures import TRANSIENT, UNREACHABLE, failure_reason

log = structlog.get_logger("tournament")


def reconcile_running(services: Services, url: str) -> int:
    """Reconcile every running or paused tournament (``serve`` calls this now and then), and end the games
    of cancelled ones still played (``clock_due.end_cancelled``); returns how many were reconciled.

    One tournament that fails (a setting stored before settings were checked, a game that cannot be set
    up) is logged and set aside with the reason (``TournamentStore.mark_failed``; its status shows it) and
    skipped from then on; the others go on. Redis errors are not the tournament's: they go up, and the
    next pass tries again."""
    ids = list_ids(services, 0, 1000)
    pipe = services.redis.pipeline(transaction=False)
    for tid in ids:
        pipe.hmget(tournament_key(tid, "meta"), "status", FAILED_FIELD, GAMES_ENDED)
    metas = [
        (t, m) for t, m in zip(ids, pipe.execute(raise_on_error=False), strict=True) if isinstance(m, list)
    ]
    active = [tid for tid, meta in metas if meta[0] in (b"running", b"paused") and meta[1] is None]
    end_cancelled(services.redis, [t for t, meta in metas if meta[0] == b"cancelled" and meta[2] is None])
    for tid in active:
        try:
            reconcile(services, url, tid)
        except UNREACHABLE:
            raise
        except TRANSIENT as exc:  # Redis refused one call (WRONGTYPE, OOM): not this tournament's fault
            log.warning("tournament_reconcile_skipped", tournament_id=tid, error=str(exc))
        except Exception as exc:
            log.exception("tournament_failed", tournament_id=tid)
            TournamentStore(services.redis).mark_failed(tid, failure_reason(exc))
    return len(active)
