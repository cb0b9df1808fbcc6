"""Issue 43, finding 18: the security headers are on every HTTP answer, not only pages: the API's JSON,
its errors, static files and the OpenAPI document (``services/gateway/security_headers.py``)."""

from __future__ import annotations

import httpx

from services.gateway.security_headers import HEADERS


def test_every_kind_of_answer_carries_the_security_headers(api: httpx.Client) -> None:
    answers = [
        api.get("/"),
        api.get("/api/games"),
        api.get("/api/games/nope"),  # 404
        api.post("/api/games", json={"game": "race", "seats": 2, "bots": {"²": "greedy"}}),  # 400
        api.get("/static/style.css"),
        api.get("/openapi.json"),
        api.get("/no/such/page"),
    ]
    for answer in answers:
        for name, value in HEADERS:
            assert answer.headers.get_list(name.decode()) == [value.decode()], (answer.url, name)
    assert [a.status_code for a in answers] == [200, 200, 404, 400, 200, 200, 404]
