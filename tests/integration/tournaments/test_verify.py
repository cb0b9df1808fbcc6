"""A tournament's export verifies offline (chain, replay, every pairing re-decided); a pairing changed in
the export, even with its hashes recomputed, is caught by the re-decision, and a changed byte by the chain."""

from __future__ import annotations

import msgspec

from domain.tournament import RoundPaired, TableFinished
from domain.tournament import rules as tournament_rules
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for
from tests.support.tournaments import record_round


def _played(services) -> str:
    """A 2-round Swiss of 6 players at tables of 3, results recorded straight through the store."""
    tid = service.create(
        services, service.TournamentSpec(game="manila", rounds=2, table_size=3, players=6, id="tv")
    )
    store = TournamentStore(services.redis)
    loaded = store.load(tid)
    assert store.append(loaded, "start", tournament_rules.start(loaded.state)).status == "ok"
    for number in (1, 2):
        record_round(store, tid, number)
    assert store.load(tid).state.status == "finished"
    return tid


def test_an_export_verifies_and_a_forged_pairing_does_not(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = _played(services)
    lines = list(service.export_lines(services, tid))
    report = verify_tournament_lines(lines)
    assert report.ok, report.problems
    assert (report.rounds_checked, report.games) == (2, 4)

    # A changed byte in a payload breaks the chain.
    events = [msgspec.json.decode(line) for line in lines]
    paired = next(i for i, e in enumerate(events) if e.get("type") == "RoundPaired")
    tampered = dict(events[paired])
    tampered["payload"] = tampered["payload"][:-2] + ("00" if tampered["payload"][-2:] != "00" else "01")
    forged = [*lines[:paired], msgspec.json.encode(tampered), *lines[paired + 1 :]]
    assert any("chain broken" in p for p in verify_tournament_lines(forged).problems)


def test_a_pairing_the_rules_would_not_make_is_named(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = service.create(
        services, service.TournamentSpec(game="manila", rounds=1, table_size=3, players=6, id="tf")
    )
    store = TournamentStore(services.redis)
    loaded = store.load(tid)
    honest = tournament_rules.start(loaded.state)
    pairing = honest[1]
    assert isinstance(pairing, RoundPaired)
    swapped = msgspec.structs.replace(pairing, tables=(pairing.tables[1], pairing.tables[0]))
    assert store.append(loaded, "start", [honest[0], swapped]).status == "ok"  # a forged decision, chained
    report = verify_tournament_lines(service.export_lines(services, tid))
    assert report.problems and "RoundPaired is not what the rules decide" in report.problems[0]


FAKE_OK = "late\x1b[1A\x1b[2K\r\x1b[32mOK tv (finished)\x1b[0m\u202e"
"""The report's reason: erase the line above, paint a green OK, and turn what follows right to left."""


def test_what_verify_prints_from_the_file_is_escaped(redis_url, redis_client, tmp_path, capsys) -> None:
    """Issue 41.5: a forged file (the intake now refuses such reasons) adjudicates a table with a reason full
    of terminal escapes; ``tournament verify`` prints it escaped (``\\x1b``), never raw."""
    from services.tournament_cli import verify_file

    services = services_for(redis_url)
    tid = service.create(
        services, service.TournamentSpec(game="manila", rounds=1, table_size=3, players=6, id="tesc")
    )
    store = TournamentStore(services.redis)
    loaded = store.load(tid)
    assert store.append(loaded, "start", tournament_rules.start(loaded.state)).status == "ok"
    loaded = store.load(tid)
    tables = loaded.state.rounds[0].pairing.tables
    finished = [tournament_rules.adjudicated_result(1, 0, tables[0], "h", FAKE_OK),
                TableFinished(round=1, table=1, ranking=tables[1], scores=(3, 2, 1), winners=tables[1][:1],
                              final_hash="h")]  # fmt: skip
    assert (
        store.append(loaded, "close-r1", tournament_rules.record_tables(loaded.state, finished)).status
        == "ok"
    )
    path = tmp_path / "tesc.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in service.export_lines(services, tid)))
    assert verify_file(str(path), None) == 3  # nothing wrong; one result with no archive at hand
    printed = capsys.readouterr()
    shown = printed.out + printed.err
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "late\\x1b[1A\\x1b[2K\\r\\x1b[32mOK" in shown and "\\u202e" in shown
