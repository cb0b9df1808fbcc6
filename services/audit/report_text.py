"""What ``tournament verify`` prints of its report: every line escaped (``domain/text.escaped``).

Anything in a report may come from the file: a tournament id, a game id, an organiser's reason, a quoted
value in a problem. A forged file must not be able to paint the auditor's terminal (an ESC sequence erasing
the line above and printing a green ``OK``), so each line is escaped once, here, where it is printed.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from domain.text import escaped
from services.audit.tournament_verify import TournamentReport

MAX_LISTED = 10
"""Game ids listed in one line before it says how many more."""


class Printed(msgspec.Struct, kw_only=True):
    out: list[str] = msgspec.field(default_factory=list)
    err: list[str] = msgspec.field(default_factory=list)
    code: int = 0
    """0: every result proven; 1: a problem; 3: nothing wrong, some results tied to the chain only."""


def tournament_lines(report: TournamentReport, archives: Path | None) -> Printed:
    """The lines to print (each escaped, without its newline) and the exit code."""
    tid = escaped(report.tournament_id)
    if not report.ok:
        return Printed(err=[f"FAILED {tid}: {escaped(p)}" for p in report.problems or ["no events"]], code=1)
    state = "finished" if report.status == "finished" else f"{report.status}, verified up to its last event"
    printed = Printed(out=[f"{'OK' if not report.unproven else 'UNPROVEN'} {tid} ({escaped(state)}): "
                           f"{report.events} events, chain intact, {report.decisions_checked} decisions re-decided "
                           f"({report.rounds_checked} pairings), {report.games} games, {report.proven} results "
                           f"proven against their archives in {escaped(str(archives))}"])  # fmt: skip
    if not report.ended:
        printed.out.append(
            "exported before tournament exports had an end line: whole, as its events end the tournament"
        )
    if report.unrecorded:
        printed.out.append(f"{len(report.unrecorded)} games ended in a round not closed at the export (no result "
                           f"yet): {_listed(report.unrecorded, ', ')}")  # fmt: skip
    if report.adjudicated_proven:
        printed.out.append(f"{len(report.adjudicated_proven)} tables adjudicated by the organiser, proven against "
                           f"their game's archive (decided before it ended): "
                           f"{_listed(report.adjudicated_proven, '; ')}")  # fmt: skip
    if report.adjudicated:
        printed.out.append(f"{len(report.adjudicated)} tables adjudicated by the organiser, their game's archive "
                           f"not at hand: {_listed(report.adjudicated, '; ')}")  # fmt: skip
    if report.unproven:
        printed.out.append(f"{len(report.unproven)} results tied to the chain only, no archive found: "
                           f"{_listed(report.unproven, ', ')} (--archives DIR names the folder)")  # fmt: skip
        printed.code = 3
    return printed


def _listed(items: list[str], sep: str) -> str:
    more = " …" if len(items) > MAX_LISTED else ""
    return escaped(sep.join(items[:MAX_LISTED])) + more
