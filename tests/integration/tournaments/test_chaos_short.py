"""The short tournament chaos run (``make chaos`` runs the long one, ``python -m tests.chaos tournaments``):
the five scripted tournaments (a no-show, a final of two people playing default moves, a leaver, a
withdrawal between rounds, a replacement mid-game; swiss, round-robin and elimination of all three games)
under a real ``serve`` while a fold worker, an rq worker, a work-horse, the gateway and Redis are each
killed at least once. Afterwards no tournament failed or stuck, no archive was lost or replaced, every
export verifies, and every result, standings row and rating equals the recomputation from the archives.

The Redis kill was left out for a while (issue 42): after it, about one run in five ended with a clock
timeout claimed by a claimer that had read the game's time before a move and its position after it, which
``tournament verify`` refused; the claimer now reads both at one position and the fold worker refuses any
timeout the log does not justify (``workers/timeout_guard.py``; the race made deterministic:
``tests/integration/clock/test_clock_timeout_position.py``)."""

from __future__ import annotations

import sys

import pytest

from tests.chaos.tournaments import TournamentChaosConfig, run_tournament_chaos

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="finds processes in /proc")


def test_tournaments_survive_every_fault_and_equal_their_recomputation(tmp_path) -> None:
    config = TournamentChaosConfig(tournaments=5, duration_s=20.0, settle_s=600.0, gap_s=(0.5, 1.5), seed=5)
    result = run_tournament_chaos(config, folder=tmp_path)
    report = "\n".join(result.lines())
    assert set(result.faults_injected) == {"fold", "rq", "horse", "gateway", "redis"}, report
    assert result.faults_survived == result.faults_injected, report
    assert result.tournaments == 5 and result.finished == 5, report
    assert not result.failed and not result.stuck, report
    assert {k.split("/")[0] for k in result.kinds} == {"swiss", "round_robin", "elimination"}, report
    assert {k.split("/")[1] for k in result.kinds} == {"eic", "elcapitan", "manila"}, report
    assert result.archives_watched >= result.games > 0 and not result.archives_unverified, report
    assert not result.archives_replaced and not result.archives_lost, report  # hashed when first verified
    assert result.verified == 5 and result.proven == result.games, report
    assert not result.problems, report  # results, standings, ratings, rounds, winners as recomputed
    assert len(result.stories) == 5 and not result.story_problems, report
    assert not result.client_errors and result.serve_exit == 0, report
