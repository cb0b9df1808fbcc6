"""``/openapi.json`` describes exactly the routes the app serves, and responses match its schemas."""

from __future__ import annotations

import httpx
import msgspec
import pytest
from starlette.routing import Mount, Route, WebSocketRoute

from services.gateway import protocol
from services.gateway.app import routes
from tests.gateway.client import create

pytestmark = pytest.mark.redis


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
