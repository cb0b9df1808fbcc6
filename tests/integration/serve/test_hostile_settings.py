"""Hostile settings and poisoned records against a running ``harbormaster serve`` (issues 31.1, 31.3, 31.8,
33.1, 33.4, 33.5): refused over HTTP with what is allowed, and a tournament stored before settings were
checked is set aside as failed with its reason (HTTP and CLI show it) while ``serve`` stays up, restarts
nothing, and other games keep moving. Then a fuzz target: random tournament and game settings over HTTP,
``serve`` alive after each, its restarts counted (0).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import GAMES
from domain.tournament import Entrant, TournamentSettings
from domain.tournament import rules as tournament_rules
from events.tournament_store import TournamentStore
from services.gateway.access.auth import digest, new_secret
from services.redis_launcher import free_port, running_url
from services.tournament_people import organiser_key_field
from tests.support.pipeline import stop_serve

RESTARTS = ("child_exited", "embedded_redis_died")
"""What the supervisor logs when something it runs died."""


@dataclass
class Serve:
    process: subprocess.Popen[bytes]
    api: httpx.Client
    redis: redis.Redis
    url: str
    log: Path

    def restarts(self) -> int:
        text = self.log.read_text(errors="replace")
        return sum(text.count(word) for word in RESTARTS)

    def alive(self) -> bool:
        return self.process.poll() is None and self.api.get("/healthz").status_code == 200


def _seqs(api: httpx.Client) -> dict[str, int]:
    games = api.get("/api/games", params={"status": "live"}).json()["games"]
    return {g["game_id"]: g["seq"] for g in games if g["game_id"].startswith("demo-")}


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    data = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {**os.environ, "HARBORMASTER_DATA": str(data), "HARBORMASTER_LOG_LEVEL": "info"}
    env.pop("REDIS_URL", None)
    log = data / "serve.log"
    with open(log, "wb") as out:  # a file, not a pipe nobody reads: serve must never block on its log
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    deadline = time.monotonic() + 90
    while True:
        try:
            if len(_seqs(api)) == 3:
                break
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError(f"serve never got going:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)
    url = running_url(data)
    assert url is not None
    client = redis.Redis.from_url(url)
    try:
        yield Serve(process=process, api=api, redis=client, url=url, log=log)
    finally:
        api.close()
        client.close()
        stop_serve(process, data)


def _refused(serve: Serve, path: str, body: dict[str, Any], status: int = 422) -> dict[str, Any]:
    answer = serve.api.post(path, json=body)
    assert answer.status_code == status, answer.text
    refusal: dict[str, Any] = answer.json()
    return refusal


BOTS4 = [{"name": "Ann"}, {"name": "b1", "bot": "random"}, {"name": "b2", "bot": "random"}, {"name": "b3", "bot": "random"}]  # fmt: skip


def test_hostile_tournament_settings_are_refused_over_http_with_what_is_allowed(serve: Serve) -> None:
    before = serve.api.get("/api/tournaments").json()["tournaments"]
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"game": "manila", "rounds": 1, "total_limit_s": 1e308, "entrants": BOTS4}, "tournament.clock",
         "total_limit_s is seconds from 0 (off) to 604800 (a week), not 1e+308"),
        ({"game": "manila", "rounds": 1, "move_limit_s": 1e308, "entrants": BOTS4}, "tournament.clock",
         "move_limit_s is seconds from 0 (off) to 604800 (a week), not 1e+308"),
        ({"game": "manila", "rounds": 1, "options": {"x": 1}, "entrants": BOTS4}, "tournament.options",
         "options refused by manila: unknown option(s) x"),
        ({"game": "eic", "rounds": 1, "options": {"pledging": "yes"}, "entrants": BOTS4}, "tournament.options",
         "options refused by eic: the option pledging is true or false"),
        ({"game": "manila", "format": "elimination", "table_size": 5, "players": 15,
          "points": {"5": [10, 7, 5, 3, 1], "4": [10, 6, 3, 1]}}, "tournament.points",
         "points by place for tables of 3 are missing"),
        ({"game": "elcapitan", "players": 2, "table_size": 4}, "tournament.table_size",
         "2 entrants cannot fill a table of 3 or more"),
        ({"game": "manila", "players": 3, "table_size": 5}, "tournament.table_size",
         "3 entrants cannot fill a table of 4 or more"),
        ({"game": "manila", "players": 8, "rounds": -3}, "tournament.rounds", "rounds is 0 (the format's natural length) to 100, not -3"),
        ({"game": "manila", "players": 8, "rounds": 10_000}, "tournament.rounds", "to 100, not 10000"),
        ({"game": "manila", "players": 100_000}, "tournament.entrants", "a tournament has 2 to 10000 players"),
        ({"game": "manila", "players": 8, "bots": ["deep-blue"]}, "tournament.bot",
         "unknown bot 'deep-blue'; this game's bots are greedy, random"),
        ({"game": "manila", "players": 8, "id": "../../httpevil"}, "tournament.id",
         "a tournament id is 1 to 48 lower-case letters, digits, _ or - (not first)"),
        ({"game": "manila", "players": 8, "id": "cup.2026"}, "tournament.id", "not 'cup.2026'"),
        ({"game": "manila", "players": 8, "id": "cup:2026"}, "tournament.id", "not 'cup:2026'"),
    ]  # fmt: skip
    for body, code, said in cases:
        refusal = _refused(serve, "/api/tournaments", body)
        assert refusal["error"] == code and said in refusal["message"], (body, refusal)
    assert serve.api.get("/api/tournaments").json()["tournaments"] == before  # nothing stored


def test_hostile_game_settings_and_ids_are_refused_over_http(serve: Serve) -> None:
    games_before = serve.redis.zcard("hm:games")
    for game_id in ("a.b", "x:y", "../evil", "Upper", "cup-r1-t1"):
        refusal = _refused(serve, "/api/games", {"game": "manila", "seats": 3, "game_id": game_id}, 400)
        assert refusal["error"] == "bad_game_id", refusal
    assert (
        "kept for tournaments' games"
        in _refused(serve, "/api/games", {"game": "manila", "seats": 3, "game_id": "cup-r1-t1"}, 400)[
            "message"
        ]
    )
    refusal = _refused(serve, "/api/games", {"game": "manila", "seats": 3, "options": {"x": 1}})
    assert refusal["error"] == "manila.unknown_option"
    assert serve.redis.zcard("hm:games") == games_before
    # an id with a hyphen is a good id: its game is made and found
    made = serve.api.post("/api/games", json={"game": "manila", "seats": 3, "game_id": "my-game_1"})
    assert made.status_code == 201, made.text


def _poisoned(serve: Serve, tid: str, **settings: Any) -> dict[str, str]:
    """A tournament as a version before settings were checked would have stored it (a person at its table:
    the round stays open, as it would wait for them); returns the organiser's headers (its key is set here:
    a tournament without one takes only the admin token, which this serve has not)."""
    game = GAMES["manila"]
    entrants = [Entrant(name="ann"), *(Entrant(name=f"b{n}", bot="random") for n in range(2))]
    events = tournament_rules.create(
        tid, TournamentSettings(game="manila", table_size=3, rounds=1, **settings), entrants,
        min_seats=game.min_seats, max_seats=game.max_seats, pairing_seed=b"seed",
    )  # fmt: skip
    TournamentStore(serve.redis).create(events[0])  # type: ignore[arg-type]
    key = new_secret()
    serve.redis.set(organiser_key_field(tid), digest(key))
    return {"Authorization": f"Bearer {key}"}


def _status(serve: Serve, tid: str) -> dict[str, Any]:
    body: dict[str, Any] = serve.api.get(f"/api/tournaments/{tid}").json()
    return body


def _move_times(serve: Serve, moves: int) -> list[float]:
    """Seconds for each of ``moves`` moves of a game of people, each answered (``?wait=true``)."""
    made = serve.api.post("/api/games", json={"game": "manila", "seats": 3}).json()
    game_id, tokens = made["game_id"], {s["seat"]: s["token"] for s in made["seats"]}
    times = []
    for _ in range(moves):
        seat = serve.api.get(f"/api/games/{game_id}").json()["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        command = serve.api.get(f"/api/games/{game_id}/legal", headers=auth).json()[0]
        started = time.perf_counter()
        answer = serve.api.post(
            f"/api/games/{game_id}/commands?wait=true", json={"command": command}, headers=auth
        )
        times.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.text
    return times


def test_a_poisoned_stored_tournament_is_set_aside_and_serve_stays_up(serve: Serve) -> None:
    restarts = serve.restarts()
    clock_organiser = _poisoned(serve, "poison-clock", total_limit_s=1e308)
    options_organiser = _poisoned(serve, "poison-options", options={"x": 1})
    # Records no version wrote: an index entry whose keys were deleted by hand, a meta key of another type.
    serve.redis.zadd("hm:tournaments", {"poison-deleted": 1, "poison-wrongtype": 2})
    serve.redis.set("hm:{t:poison-wrongtype}:meta", "not a hash")
    # The clock's poison shows on serve's next reconcile pass; the options' as its first round opens.
    assert serve.api.post("/api/tournaments/poison-clock/start", headers=clock_organiser).status_code == 200
    refused = serve.api.post("/api/tournaments/poison-options/start", headers=options_organiser)
    assert refused.status_code == 409 and refused.json()["error"] == "tournament.failed", refused.text
    assert "unknown option(s) x" in refused.json()["message"]
    seqs = _seqs(serve.api)
    deadline = time.monotonic() + 30
    while _status(serve, "poison-clock")["status"] != "failed" and time.monotonic() < deadline:
        time.sleep(0.5)
    clock = _status(serve, "poison-clock")
    assert clock["status"] == "failed" and clock["failure"].startswith("OverflowError"), clock
    assert _status(serve, "poison-options")["failure"].startswith("RuleViolation: manila.unknown_option")
    times = _move_times(serve, 20)  # another game's moves, over two more reconcile passes
    time.sleep(4)
    assert serve.alive() and serve.restarts() == restarts
    print(
        f"moves of another game meanwhile: median {sorted(times)[10] * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )
    assert sorted(times)[10] < 0.1  # the median within 100 ms on this shared machine
    listed = {t["tournament_id"] for t in serve.api.get("/api/tournaments").json()["tournaments"]}
    assert {"poison-clock", "poison-options"} <= listed and not listed & {
        "poison-deleted",
        "poison-wrongtype",
    }
    now = _seqs(serve.api)
    moved = [g for g in seqs if now.get(g, 1 << 30) > seqs[g]]
    assert moved, f"no demo game moved on while the poisoned tournaments were set aside: {seqs} -> {now}"
    cli = subprocess.run(
        [sys.executable, "-m", "services.cli", "tournament", "status", "poison-clock"],
        env={**os.environ, "REDIS_URL": serve.url}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0 and '"status": "failed"' in cli.stdout and "OverflowError" in cli.stdout


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
NUMBER = st.one_of(
    st.integers(-5, 12), st.sampled_from([0, 10_000, 100_000, 2**63, -(2**63)]), st.floats(allow_nan=False, allow_infinity=False)
)  # fmt: skip
IDS = st.one_of(
    st.none(), st.sampled_from(["a.b", "x:y", "../evil", "ok-id", "a}b", ""]), st.text(max_size=70)
)
FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "game": st.sampled_from(["manila", "elcapitan", "eic", "chess", ""]),
    "format": st.sampled_from(["swiss", "round_robin", "elimination", "knockout"]),
    "rounds": NUMBER,
    "table_size": NUMBER,
    "players": NUMBER,
    "bots": st.lists(st.sampled_from(["random", "greedy", "deep-blue", ""]), max_size=3),
    "entrants": st.lists(st.fixed_dictionaries({"name": st.text(max_size=5)}, optional={"bot": st.sampled_from(["random", "zed"])}), max_size=6),
    "points": st.dictionaries(st.sampled_from(["2", "3", "4", "5", "0", "-1"]), st.lists(st.integers(-10, 10), max_size=6), max_size=3),
    "bye_points": NUMBER,
    "advance": NUMBER,
    "options": st.dictionaries(st.sampled_from(["x", "pledging", "deal", "expansions", "variant_boarding"]), JSONISH, max_size=2),
    "move_limit_s": st.floats(allow_nan=False, allow_infinity=False),
    "total_limit_s": st.floats(allow_nan=False, allow_infinity=False),
    "on_timeout": st.sampled_from(["default_move", "forfeit", "shrug"]),
    "tie_breaks": st.lists(st.sampled_from(["points", "wins", "luck"]), max_size=3),
    "id": IDS,
}  # fmt: skip
ONE_CHANGE = st.one_of(st.just({}), *(st.fixed_dictionaries({key: value}) for key, value in FIELDS.items()))
PLAYABLE = st.fixed_dictionaries(
    {"game": st.sampled_from(["manila", "elcapitan", "eic"]), "players": st.integers(3, 7), "table_size": st.just(3),
     "rounds": st.just(1), "bots": st.just(["random", "greedy"])}
)  # fmt: skip
TOURNAMENT = st.builds(lambda base, a, b: {**base, **a, **b}, PLAYABLE, ONE_CHANGE, ONE_CHANGE)
"""A playable tournament with up to two settings changed at random: some still playable, most not."""
GAME = st.fixed_dictionaries(
    {"game": st.sampled_from(["manila", "elcapitan", "eic", "chess"]), "seats": NUMBER},
    optional={
        "options": st.dictionaries(st.sampled_from(["x", "pledging", "deal", "expansions", "variant_boarding"]), JSONISH, max_size=2),
        "bots": st.dictionaries(st.sampled_from(["0", "1", "7", "x"]), st.sampled_from(["random", "greedy", "zed"]), max_size=2),
        "game_id": IDS,
    },
)  # fmt: skip
FUZZ = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_fuzz_random_tournament_and_game_settings_never_take_serve_down(serve: Serve) -> None:
    restarts, answered = serve.restarts(), {"created": 0, "refused": 0}

    @FUZZ
    @given(tournament=TOURNAMENT, game=GAME, start=st.booleans())
    def one(tournament: dict[str, Any], game: dict[str, Any], start: bool) -> None:
        made = serve.api.post("/api/tournaments", json=tournament)
        assert made.status_code in (201, 400, 409, 413, 422), (tournament, made.text)
        answered["created" if made.status_code == 201 else "refused"] += 1
        if made.status_code == 201:
            tid, key = made.json()["tournament_id"], made.json()["organiser_key"]
            path, organiser = f"/api/tournaments/{tid}", {"Authorization": f"Bearer {key}"}
            if start:
                assert serve.api.post(f"{path}/start", headers=organiser).status_code in (200, 409)
                assert serve.api.post(f"{path}/pause", headers=organiser).status_code in (200, 409)
            assert serve.api.get(path).status_code == 200
        created = serve.api.post("/api/games", json=game)
        assert created.status_code in (201, 400, 409, 413, 422), (game, created.text)
        assert serve.process.poll() is None, "serve exited"

    one()
    time.sleep(4)  # a reconcile pass over every tournament made
    assert serve.alive()
    assert serve.restarts() == restarts, serve.log.read_text(errors="replace")[-3000:]
    assert answered["created"] > 0 and answered["refused"] > 0  # both paths were exercised
    for tournament in serve.api.get("/api/tournaments", params={"limit": 500}).json()["tournaments"]:
        assert tournament["status"] != "failed" or tournament["tournament_id"].startswith("poison-")
