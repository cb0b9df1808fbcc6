"""Fuzz: hypothesis over every HTTP route and the WebSocket (its query and its frames), against the real
gateway, fold worker and Redis. Whatever comes in: no 5xx, a status the OpenAPI document lists for that
operation (or 404/405 off the map), an ``{error, message}`` body with every API refusal, nothing changed
by a refused request, and on the WebSocket an answer frame or a clear close code, never a dropped socket.

Examples are derandomized (the same every run: a fuzz test must not be flaky) and few enough to keep the
module near 30 s; ``-s`` prints how many cases ran and how many answered 5xx.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from events import keys
from tests.support.client import create
from tests.support.harness import ServerThread

FUZZ = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
WS_CLOSES = {4400, 1007, 1009}
"""The close codes a frame may earn (bad frame, nested too deep, too big)."""


@dataclass
class Target:
    """The game every example aims at, and what refused requests must leave as it was."""

    api: httpx.Client
    redis: redis.Redis
    server: ServerThread
    game_id: str
    tokens: list[str]
    spec: dict[str, Any]
    cases: int = 0
    server_errors: list[str] = field(default_factory=list)

    def snapshot(self) -> tuple[int, int, int]:
        game_id = self.game_id
        events, results = self.redis.xlen(keys.events(game_id)), self.redis.hlen(keys.results(game_id))
        return events, results, self.redis.zcard(keys.GAMES_INDEX)


@pytest.fixture
def target(stack: ServerThread, api: httpx.Client, redis_client: redis.Redis) -> Iterator[Target]:
    game = create(api, "race", 2)
    tokens = [s["token"] for s in game["seats"]]
    found = Target(api, redis_client, stack, game["game_id"], tokens, api.get("/openapi.json").json())
    yield found
    print(f"\nfuzz: {found.cases} cases, {len(found.server_errors)} answered 5xx")
    assert not found.server_errors


# --- strategies -----------------------------------------------------------------------------------------

text = st.text(max_size=24)
printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
commands = st.fixed_dictionaries(
    {"type": st.sampled_from(["Note", "Roll", "Bid", "", "note"])},
    optional={"text": json_values, "amount": json_values, "extra": json_values},
)
submits = st.fixed_dictionaries(
    {"command": commands | json_values},
    optional={"command_id": st.sampled_from(["setup", "a" * 65, "ok-1", "x y"]) | text, "seat": json_values},
)
creations = st.fixed_dictionaries(
    {"game": st.sampled_from(["race", "manila", "eic", "elcapitan", "chess"]), "seats": st.integers(-1, 9)},
    optional={
        "options": st.dictionaries(text, json_values, max_size=2),
        "bots": st.dictionaries(st.sampled_from(["0", "1", "²", "-1", "99"]), text, max_size=2),
        "game_id": text,
        "spectator_delay": json_values,
        "tournament": json_values,
        "colour": json_values,
    },
)
nested = (st.integers(0, 3000) | st.sampled_from([32, 33, 1000])).map(lambda n: "[" * n + "]" * n)
nested_bodies = nested.flatmap(
    lambda deep: st.sampled_from(
        [
            deep,
            f'{{"command": {deep}}}',
            f'{{"command": {{"type": "Note", "text": {deep}}}}}',
            f'{{"game": "race", "seats": 2, "options": {{"goal": {deep}}}}}',
        ]
    )
).map(str.encode)
bodies = st.one_of(
    st.binary(max_size=64),
    nested_bodies,
    json_values.map(lambda v: json.dumps(v).encode()),
    submits.map(lambda v: json.dumps(v).encode()),
    submits.map(lambda v: json.dumps(v).encode()),
    creations.map(lambda v: json.dumps(v).encode()),
)
PARAMS = ["status", "offset", "limit", "at", "from", "token", "wait"]
param_values = st.sampled_from(["0", "1", "-1", "²", "1e3", "9" * 30, "", "live", "true", " 1"]) | printable
PATHS = [
    "/api/games", "/api/catalog", "/api/games/{g}", "/api/games/{g}/legal", "/api/games/{g}/events",
    "/api/games/{g}/commands", "/api/games/{g}/commands/{c}", "/healthz", "/openapi.json", "/",
    "/games/{g}", "/metrics", "/api/games/{g}/commands/@position", "/static/../pyproject.toml", "/nowhere",
    "/api/tournaments", "/api/tournaments/{g}", "/api/tournaments/{g}/start", "/api/tournaments/{g}/pause",
    "/api/tournaments/{g}/resume", "/api/games/{g}/chat", "/api/tables", "/api/tables/{g}", "/api/tables/{g}/join",
    "/api/session", "/api/accounts", "/api/accounts/{g}", "/api/me/games", "/api/leaderboards/{g}",
]  # fmt: skip
OPERATIONS = [("POST", "/api/games"), ("POST", "/api/games/{g}/commands")] * 6 + [
    (method, path) for path in PATHS for method in ("GET", "POST", "PUT", "DELETE")
]
"""Every path with every method, and the two that decode bodies six times as often."""


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    method, path = draw(st.sampled_from(OPERATIONS))
    return {
        "method": method,
        "path": path,
        "game": draw(st.sampled_from(["real", "real", "real", "fuzzed"])),
        "fuzzed_id": draw(text),
        "command_id": draw(st.sampled_from(["setup", "c1"]) | text),
        "params": draw(st.dictionaries(st.sampled_from(PARAMS), param_values, max_size=3)),
        "auth": draw(st.sampled_from(["none", "seat0", "seat0", "seat1", "junk"])),
        "junk": draw(printable),
        "body": draw(bodies),
    }


# --- HTTP -----------------------------------------------------------------------------------------------


def _send(target: Target, case: dict[str, Any]) -> tuple[httpx.Response, str]:
    game_id = target.game_id if case["game"] == "real" else quote(case["fuzzed_id"], safe="") or "x"
    path = case["path"].replace("{g}", game_id).replace("{c}", quote(case["command_id"], safe="") or "c")
    headers = {"Content-Type": "application/json"}
    if case["auth"].startswith("seat"):
        headers["Authorization"] = f"Bearer {target.tokens[int(case['auth'][4])]}"
    elif case["auth"] == "junk":
        headers["Authorization"] = case["junk"]
    params = dict(case["params"])
    if case["method"] == "POST" and path.endswith("/commands"):
        params["wait"] = "true"  # settled before the next example, so a refusal's snapshot is exact
    content = case["body"] if case["method"] in ("POST", "PUT") else None
    response = target.api.request(case["method"], path, params=params, headers=headers, content=content)
    return response, case["path"]


def _documented(target: Target, template: str, method: str) -> set[str] | None:
    """The statuses the document lists for this operation (None: not a documented operation)."""
    name = "{tournament_id}" if template.startswith("/api/tournaments") else "{game_id}"
    path = template.replace("{g}", name).replace("{c}", "{command_id}")
    operation = target.spec["paths"].get(path, {}).get(method.lower())
    return set(operation["responses"]) if operation else None


@settings(FUZZ, max_examples=300)
@given(case=requests())
def test_no_http_request_gets_a_5xx_an_undocumented_status_or_changes_state_when_refused(
    target: Target, case: dict[str, Any]
) -> None:
    before = target.snapshot()
    response, template = _send(target, case)
    target.cases += 1
    status = response.status_code
    if status >= 500:
        target.server_errors.append(f"{case} -> {status} {response.text[:200]}")
    assert status < 500, (case, response.text)
    documented = _documented(target, template, case["method"])
    allowed = (documented or set()) | {"404", "405"}
    assert str(status) in allowed, (case, status, response.text)
    if status >= 400 and template.startswith("/api"):
        body = response.json()
        assert body["error"] and body["message"], body
        if (
            body["error"] != "rejected" and "command_id" not in body
        ):  # a rule's refusal is recorded, by design
            assert target.snapshot() == before, (case, response.text)


# --- WebSocket ------------------------------------------------------------------------------------------


def _read_answer(ws: ClientConnection) -> tuple[str, Any]:
    """Past hello and event frames, the first answer: ("frame", its JSON) or ("closed", its code)."""
    try:
        while True:
            frame = json.loads(ws.recv(timeout=10))
            if frame["type"] not in ("hello", "event", "resync"):
                return "frame", frame
    except ConnectionClosed as exc:
        return "closed", exc.rcvd.code if exc.rcvd else None


frames = st.one_of(
    st.just('{"type": "ping"}'),
    json_values.map(json.dumps),
    commands.map(lambda c: json.dumps({"type": "command", "command": c})),
    submits.map(lambda s: json.dumps({"type": "command", **s})),
    nested,
    st.integers(16 * 1024 - 10, 16 * 1024 + 10).map(lambda n: '"' + "x" * n + '"'),
    st.binary(max_size=32),
    text,
)


@FUZZ
@given(frame=frames, seat=st.sampled_from([None, 0]))
def test_every_websocket_frame_gets_an_answer_or_a_clear_close_code(
    target: Target, frame: str | bytes, seat: int | None
) -> None:
    before = target.snapshot()
    query = f"?token={target.tokens[seat]}" if seat is not None else ""
    with connect(f"{target.server.ws_base}/ws/games/{target.game_id}{query}", max_size=None) as ws:
        ws.send(frame)
        kind, answer = _read_answer(ws)
    target.cases += 1
    if kind == "closed":
        assert answer in WS_CLOSES, (frame, answer)
        assert target.snapshot() == before
    else:
        assert answer["type"] in ("pong", "result"), answer
        if answer["type"] == "result" and answer["status"] == "rejected" and answer.get("code") != "rejected":
            assert answer["code"] and answer["message"]


@FUZZ
@given(game=st.sampled_from(["real", "fuzzed"]), fuzzed=text, params=st.dictionaries(
    st.sampled_from(["from", "token"]), param_values, max_size=2))  # fmt: skip
def test_every_websocket_query_gets_hello_or_a_clear_close_code(
    target: Target, game: str, fuzzed: str, params: dict[str, str]
) -> None:
    game_id = target.game_id if game == "real" else quote(fuzzed, safe="") or "x"
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    with connect(f"{target.server.ws_base}/ws/games/{game_id}?{query}", max_size=None) as ws:
        try:
            first = json.loads(ws.recv(timeout=10))
            outcome: Any = first["type"]
        except ConnectionClosed as exc:
            outcome = exc.rcvd.code if exc.rcvd else None
    target.cases += 1
    assert outcome in ("hello", 4400, 4401, 4404), (game_id, params, outcome)
