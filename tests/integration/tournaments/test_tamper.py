"""The tamper suite (issue 33.3): a real bot tournament (Redis, fold and rq workers, server bots, every
game archived) is exported, then changed in each way an auditor must catch, re-hashing the chain where a
forger would. `tournament verify` with the archives fails on every change, naming what is wrong; the
untouched export passes with every result proven against its game."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis

from domain.tournament import TableFinished, TournamentEvent, TournamentFinished
from events import codec
from events.chain import genesis, link
from events.envelope import Envelope, GameHeader
from services import tournament_service as service
from services.archive import archive_missing
from services.audit.tournament_verify import TournamentReport, verify_tournament_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from tests.support.tournaments import play_to_the_end, tournament_workers

Lines = list[dict[str, Any]]
_event = msgspec.msgpack.Decoder(TournamentEvent)


@pytest.fixture(scope="module")
def exported(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lines, Path]]:
    """A 2-round Swiss of 6 Manila bots at tables of 3 played by real workers; its export and archives."""
    redis.Redis.from_url(redis_url).flushdb()
    archives = tmp_path_factory.mktemp("archives")
    services = services_for(redis_url)
    services.bus.ensure_groups()
    spec = service.TournamentSpec(game="manila", rounds=2, table_size=3, players=6, bots=["greedy", "random"],
                                  id="tamper")  # fmt: skip
    tid = service.create(services, spec)
    with tournament_workers(redis_url, services.bus.partitions, archives):
        play_to_the_end(services, redis_url, tid, timeout_s=300)
    archive_missing(services.store, list(service.game_ids(service.load(services, tid))), archives)
    yield [json.loads(line) for line in service.export_lines(services, tid)], archives
    redis.Redis.from_url(redis_url).flushdb()


def _verify(lines: Lines, archives: Path | None) -> TournamentReport:
    return verify_tournament_lines([json.dumps(line).encode() for line in lines], archives, TEST_GAMES)


# --- a forger's tools --------------------------------------------------------------------------------------


def _events(lines: Lines) -> list[tuple[int, TournamentEvent]]:
    return [
        (i, _event.decode(bytes.fromhex(line["payload"])))
        for i, line in enumerate(lines)
        if line["kind"] == "event"
    ]


def _rehashed(lines: Lines, index: int, event: TournamentEvent) -> Lines:
    """``lines`` with the event at ``index`` replaced, and the chain and end line recomputed after it."""
    out = [dict(line) for line in lines]
    out[index]["payload"] = codec.encode_event(event).hex()
    out[index]["event"] = json.loads(msgspec.json.encode(event))
    header = msgspec.convert({k: v for k, v in out[0].items() if k != "kind"}, type=GameHeader)
    prev = genesis(header)
    for line in out:
        if line["kind"] == "event":
            fields = {k: v for k, v in line.items() if k not in ("kind", "event")}
            fields["payload"] = bytes.fromhex(fields["payload"])
            line["prev_hash"] = prev
            line["hash"] = prev = link(msgspec.convert({**fields, "prev_hash": prev}, type=Envelope))
        elif line["kind"] == "end":
            line["last_hash"] = prev
    return out


def _table(lines: Lines, number: int) -> tuple[int, TableFinished]:
    return next((i, e) for i, e in _events(lines) if isinstance(e, TableFinished) and e.round == number)


def flipped_byte(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, _ = _table(lines, 1)
    out = [dict(line) for line in lines]
    payload = out[index]["payload"]
    out[index]["payload"] = payload[:-1] + ("0" if payload[-1] != "0" else "1")
    return out, archives


def last_two_swapped(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, event = _table(lines, 2)
    ranking, scores = list(event.ranking), list(event.scores)
    ranking[-2:], scores[-2:] = ranking[-1:-3:-1], scores[-1:-3:-1]
    forged = msgspec.structs.replace(event, ranking=tuple(ranking), scores=tuple(scores))
    return _rehashed(lines, index, forged), archives


def ranking_rotated(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, event = _table(lines, 2)
    ranking, scores = event.ranking, event.scores
    forged = msgspec.structs.replace(event, ranking=(*ranking[1:], ranking[0]), scores=(*scores[1:], scores[0]),
                                     winners=(ranking[1],))  # fmt: skip
    return _rehashed(lines, index, forged), archives


def scores_inflated(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, event = _table(lines, 2)
    forged = msgspec.structs.replace(event, scores=tuple(s + 100 for s in event.scores))
    return _rehashed(lines, index, forged), archives


def game_line_hash(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    out = [dict(line) for line in lines]
    game = next(line for line in out if line["kind"] == "game")
    game["final_hash"] = "0" * 64
    return out, archives


def result_hash(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, event = _table(lines, 2)
    return _rehashed(lines, index, msgspec.structs.replace(event, final_hash="f" * 64)), archives


def result_and_game_line_hash(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    """Both the result's final hash and its game line's, consistently: only the archive tells."""
    forged, _ = result_hash(lines, archives)
    game = next(line for line in forged if line["kind"] == "game" and line["game_id"] == "tamper-r2-t1")
    game["final_hash"] = game["archive_last_hash"] = "f" * 64
    return forged, archives


def readable_changed(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    """Only the readable copy of a result, which a person reads first: the hashed payload is untouched."""
    index, _ = _table(lines, 2)
    out = [dict(line) for line in lines]
    out[index]["event"] = {**out[index]["event"], "ranking": out[index]["event"]["ranking"][::-1]}
    return out, archives


def readable_says_more(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    """A field the event has not, added to a result's readable copy (reading it as the event drops it)."""
    index, _ = _table(lines, 2)
    out = [dict(line) for line in lines]
    out[index]["event"] = {**out[index]["event"], "disqualified": [0]}
    return out, archives


def cut_after_round_1(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    second = next(i for i, line in enumerate(lines) if line["kind"] == "event" and line["type"] == "RoundPaired"
                  and line["event"]["round"] == 2)  # fmt: skip
    return lines[:second], archives


def winner_changed(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    index, event = next((i, e) for i, e in _events(lines) if isinstance(e, TournamentFinished))
    others = [p for p in range(6) if p not in event.winners]
    return _rehashed(lines, index, msgspec.structs.replace(event, winners=(others[0],))), archives


def game_line_dropped(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    first = next(i for i, line in enumerate(lines) if line["kind"] == "game")
    return [*lines[:first], *lines[first + 1 :]], archives


def line_after_the_end(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    return [*lines, next(line for line in lines if line["kind"] == "game")], archives


def _copy(archives: Path) -> Path:
    copy = archives.parent / f"{archives.name}-forged-{time.monotonic_ns()}"
    shutil.copytree(archives, copy)
    return copy


def archive_of_another_table(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    copy = _copy(archives)
    shutil.copyfile(copy / "tamper-r1-t1.jsonl.gz", copy / "tamper-r1-t2.jsonl.gz")
    return lines, copy


def archive_event_changed(lines: Lines, archives: Path) -> tuple[Lines, Path]:
    """One event of a game's archive changed (a bid's amount, say), its own chain re-hashed: its seed's
    commitment and the re-decided commands still catch it."""
    copy = _copy(archives)
    path = copy / "tamper-r2-t1.jsonl.gz"
    game_lines = [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]
    target = next(line for line in game_lines if line["kind"] == "event" and line["seq"] == 5)
    payload = bytearray(base64.b64decode(target["payload"]))
    payload[-1] ^= 1
    target["payload"] = base64.b64encode(bytes(payload)).decode()
    path.write_bytes(gzip.compress(b"".join(json.dumps(line).encode() + b"\n" for line in game_lines)))
    return lines, copy


TAMPERS: list[tuple[Callable[[Lines, Path], tuple[Lines, Path]], str]] = [
    (flipped_byte, "chain broken"),
    (last_two_swapped, "the ranking recorded"),
    (ranking_rotated, "the ranking recorded"),
    (scores_inflated, "the in-game scores recorded"),
    (game_line_hash, "the game line's final hash"),
    (result_hash, "the game ends at hash"),
    (result_and_game_line_hash, "the game ends at hash"),
    (readable_changed, "the readable event differs from its hashed payload"),
    (readable_says_more, "the readable event differs from its hashed payload"),
    (cut_after_round_1, "no end line"),
    (winner_changed, "TournamentFinished is not what the rules decide"),
    (game_line_dropped, "no game line"),
    (line_after_the_end, "comes after the end line"),
    (archive_of_another_table, "it is the archive of game tamper-r1-t1"),
    (archive_event_changed, "does not verify"),
]


def test_the_untouched_export_is_proven_against_every_game(exported: tuple[Lines, Path]) -> None:
    lines, archives = exported
    report = _verify(lines, archives)
    assert report.ok and report.ended and report.status == "finished", report.problems
    assert (report.games, report.proven, report.unproven, report.rounds_checked) == (4, 4, [], 2)
    # Without the archives nothing is wrong, but no result is proven: each is named.
    alone = _verify(lines, None)
    assert (
        alone.ok
        and alone.proven == 0
        and sorted(alone.unproven) == [f"tamper-r{r}-t{t}" for r in (1, 2) for t in (1, 2)]
    )


@pytest.mark.parametrize(("tamper", "named"), TAMPERS, ids=[t.__name__ for t, _ in TAMPERS])
def test_every_change_is_caught_and_named(exported: tuple[Lines, Path], tamper: Any, named: str) -> None:
    lines, archives = exported
    forged, folder = tamper(lines, archives)
    assert forged != lines or folder != archives
    report = _verify(forged, folder)
    assert not report.ok, f"{tamper.__name__} passed verification"
    assert any(named in problem for problem in report.problems), report.problems


def test_no_damaged_line_crashes_the_verifier(exported: tuple[Lines, Path]) -> None:
    """Each line in turn dropped of a field, given a value of the wrong type, or replaced by non-JSON: verify
    never raises, and reports a problem unless the field was only the readable copy of an event or an
    optional field (``HARMLESS``)."""
    lines, archives = exported
    raw = [json.dumps(line).encode() for line in lines]
    for index, line in enumerate(lines):
        variants = [(b"{not json", ""), (b"[]", ""), (json.dumps({**line, "kind": "nonsense"}).encode(), "")]
        for key in line:
            if key != "kind":
                variants.append((json.dumps({k: v for k, v in line.items() if k != key}).encode(), key))
                variants.append((json.dumps({**line, key: [None, {"x": -1}]}).encode(), ""))
        for variant, dropped in variants:
            report = verify_tournament_lines([*raw[:index], variant, *raw[index + 1 :]], archives, TEST_GAMES)
            assert report.problems or dropped in HARMLESS, (index, dropped)


HARMLESS = {"event", "archive", "archive_object", "archive_last_hash", "archive_conflict", "seed"}
"""Fields whose absence changes nothing proven: the readable copy of an event, the archive pointers (the
archive is looked up by game id), and ``seed`` (always null in a tournament: an absent one is null too)."""


def test_the_cli_says_ok_unproven_or_failed_with_its_exit_code(
    exported: tuple[Lines, Path], tmp_path, capsys
) -> None:
    from services.tournament_cli import verify_file

    lines, archives = exported
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    whole.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    cut.write_bytes(
        b"".join(json.dumps(line).encode() + b"\n" for line in cut_after_round_1(lines, archives)[0])
    )
    assert verify_file(str(whole), archives) == 0
    assert capsys.readouterr().out.startswith("OK tamper (finished): ")
    assert verify_file(str(whole), tmp_path / "empty") == 3
    assert "UNPROVEN" in capsys.readouterr().out
    assert verify_file(str(cut), archives) == 1
    assert "no end line" in capsys.readouterr().err
