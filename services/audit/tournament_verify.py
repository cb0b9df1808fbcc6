"""Verify a tournament's export offline: the hash chain from its header, the fold of every event, and
every pairing re-decided from the state before it (the pairing seed is public, so anyone can)."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain.tournament import RoundPaired, State, TournamentEvent, TournamentFinished, evolve
from domain.tournament.rules import advance
from events.chain import first_broken_link
from events.envelope import Envelope, GameHeader

_event = msgspec.msgpack.Decoder(TournamentEvent)


class TournamentReport(msgspec.Struct, kw_only=True):
    tournament_id: str = ""
    events: int = 0
    rounds_checked: int = 0
    games: int = 0
    problems: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.events > 0


def _envelope(line: dict[str, object]) -> Envelope:
    fields = {k: v for k, v in line.items() if k not in ("kind", "event")}
    fields["payload"] = bytes.fromhex(str(fields["payload"]))
    return msgspec.convert(fields, type=Envelope)


def verify_tournament_lines(lines: Iterable[bytes]) -> TournamentReport:
    """Every problem found, in order; ``ok`` when there is none."""
    report = TournamentReport()
    header: GameHeader | None = None
    envelopes: list[Envelope] = []
    for raw in lines:
        line = msgspec.json.decode(raw)
        if line.get("kind") == "header":
            header = msgspec.convert({k: v for k, v in line.items() if k != "kind"}, type=GameHeader)
        elif line.get("kind") == "event":
            envelopes.append(_envelope(line))
        elif line.get("kind") == "game":
            report.games += 1
    if header is None:
        report.problems.append("no header line")
        return report
    report.tournament_id, report.events = header.game_id, len(envelopes)
    broken = first_broken_link(header, envelopes)
    if broken is not None:
        report.problems.append(f"chain broken at seq {broken[0]}: {broken[1]}")
        return report
    _replay(envelopes, report)
    return report


def _replay(envelopes: list[Envelope], report: TournamentReport) -> None:
    state: State | None = None
    for envelope in envelopes:
        event = _event.decode(envelope.payload)
        if isinstance(event, RoundPaired | TournamentFinished) and state is not None:
            expected = advance(state)
            if expected[:1] != [event]:
                report.problems.append(
                    f"seq {envelope.seq}: {type(event).__name__} is not what the rules decide"
                )
            report.rounds_checked += isinstance(event, RoundPaired)
        state = evolve(state, event)
