"""``/openapi.json`` describes exactly the routes the app serves, and responses match its schemas."""

from __future__ import annotations

import re
import typing

import httpx
import msgspec
from starlette.routing import Mount, Route, WebSocketRoute

from services.gateway.api import protocol
from services.gateway.app import routes
from tests.conftest import TEST_GAMES
from tests.support.client import bearer, create, post_command


def routed() -> set[tuple[str, str]]:
    pairs = set()
    for route in routes():
        if isinstance(route, Route):
            pairs |= {(route.path, m.lower()) for m in route.methods or () if m != "HEAD"}
        elif isinstance(route, WebSocketRoute):
            pairs.add((route.path, "get"))
        else:
            assert isinstance(route, Mount) and route.path == "/static"
    return pairs


def test_every_route_is_documented_and_every_documented_path_is_routed(api: httpx.Client) -> None:
    spec = api.get("/openapi.json").json()
    documented = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    assert documented == routed()
    assert spec["openapi"].startswith("3.1")
    for ops in spec["paths"].values():
        for op in ops.values():
            for response in op["responses"].values():
                for media in response.get("content", {}).values():
                    ref = media.get("schema", {}).get("$ref")
                    if ref:
                        assert ref.rsplit("/", 1)[1] in spec["components"]["schemas"]


def test_responses_decode_as_their_documented_schemas(api: httpx.Client) -> None:
    created = api.post("/api/games", json={"game": "race", "seats": 2})
    game = msgspec.json.decode(created.content, type=protocol.GameCreated)
    msgspec.json.decode(api.get(f"/api/games/{game.game_id}").content, type=protocol.GameState)
    msgspec.json.decode(api.get("/api/games").content, type=protocol.GameList)
    msgspec.json.decode(api.get(f"/api/games/{game.game_id}/events").content, type=protocol.EventPage)
    msgspec.json.decode(api.get("/api/catalog").content, type=protocol.Catalog)
    msgspec.json.decode(api.get("/healthz").content, type=protocol.Health)
    msgspec.json.decode(api.get("/api/games/x").content, type=protocol.Error)
    create(api, "race", 1)


def test_every_hosted_game_has_its_commands_described_and_its_legal_commands_fit(api: httpx.Client) -> None:
    spec = api.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for entry in api.get("/api/catalog").json()["games"]:
        key = entry["key"]
        union = schemas[f"{key}.Command"]
        game = TEST_GAMES[key]
        tags = {str(t.__struct_config__.tag) for t in typing.get_args(game.Command) or (game.Command,)}
        assert set(union["discriminator"]["mapping"]) == tags
        created = create(api, key, entry["min_seats"])
        seat = created["seats"][0]
        legal = api.get(f"/api/games/{created['game_id']}/legal", headers=bearer(seat["token"])).json()
        for command in legal:
            ref = union["discriminator"]["mapping"][command["type"]].rsplit("/", 1)[1]
            described = schemas[ref]
            assert set(command) <= set(described["properties"]), (key, command)
            assert set(described.get("required", [])) <= set(command), (key, command)
    submit = schemas["SubmitCommand"]["properties"]["command"]["oneOf"]
    assert {s["$ref"].rsplit("/", 1)[1] for s in submit} == {f"{g}.Command" for g in TEST_GAMES}


def test_documented_parameter_bounds_are_the_enforced_ones(api: httpx.Client) -> None:
    spec = api.get("/openapi.json").json()
    game = create(api, "race", 2)
    checked = 0
    for path, ops in spec["paths"].items():
        if "get" not in ops or path.startswith(("/ws/", "/api/log/")):
            continue  # the log's bounds are its tree's: tests/integration/api/test_log_endpoints.py
        url = path.replace("{game_id}", game["game_id"]).replace("{command_id}", "c1")
        for param in ops["get"].get("parameters", []):
            schema = param["schema"]
            if param["in"] != "query" or schema.get("type") != "integer":
                continue
            low = schema["minimum"]
            assert api.get(url, params={param["name"]: low}).status_code == 200, (path, param)
            assert api.get(url, params={param["name"]: low - 1}).status_code == 400, (path, param)
            if param["name"] != "at":  # the last event seen: a bound of each game, said in its description
                high = schema["maximum"]  # every one has a bound, so the document must say it
                assert api.get(url, params={param["name"]: high}).status_code == 200, (path, param)
                assert api.get(url, params={param["name"]: high + 1}).status_code == 400, (path, param)
            checked += 1
    assert checked >= 5


def test_documented_id_patterns_of_bodies_are_the_enforced_ones(api: httpx.Client) -> None:
    """A body the document allows is not refused for its id, and one it refuses is (issue 31.9: the
    patterns were checked by the API and missing from the document)."""
    schemas = api.get("/openapi.json").json()["components"]["schemas"]
    patterns = {
        (kind, field): next(
            b["pattern"] for b in schemas[kind]["properties"][field]["anyOf"] if "pattern" in b
        )
        for kind, field in (("CreateGame", "game_id"), ("SubmitCommand", "command_id"))
    }
    for (kind, field), pattern in patterns.items():
        for value in ("ok-id-1", "Bad.Id", "x" * 64, "x" * 65, "../up", "é"):
            documented = re.fullmatch(pattern.removesuffix("$"), value) is not None
            if kind == "CreateGame":
                game = {"game": "race", "seats": 2, "game_id": value}  # each once: no id is taken
                status = api.post("/api/games", json=game).status_code
            else:
                created = create(api, "race", 2)
                body = {"command": {"type": "Note", "text": "x"}, "command_id": value}
                token = created["seats"][0]["token"]
                status = post_command(api, created["game_id"], token, body).status_code
            assert (status < 400) == documented, (kind, field, value, status)


def test_rate_limit_and_outage_answers_are_documented(api: httpx.Client) -> None:
    spec = api.get("/openapi.json").json()
    submit = spec["paths"]["/api/games/{game_id}/commands"]["post"]["responses"]
    assert {"200", "202", "409", "429", "503"} <= set(submit)
    assert submit["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/CommandOutcome")
    assert "Retry-After" in submit["429"]["headers"] and "Retry-After" in submit["503"]["headers"]


def test_every_tournament_write_but_creation_documents_the_organiser_key_and_never_none(
    api: httpx.Client,
) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    verbs = ("start", "pause", "resume", "withdraw", "adjudicate", "replace", "cancel")
    for verb in verbs:
        security = paths[f"/api/tournaments/{{tournament_id}}/{verb}"]["post"]["security"]
        assert security == [{"organiserKey": []}, {"adminToken": []}], verb
