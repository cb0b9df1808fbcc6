"""Issue 43, finding 18: pages sent no CSP nor ``X-Frame-Options``, and there was no password change or
"sign out everywhere". Each page of the web client is opened in Chromium under the gateway's policy
(``services/gateway/security_headers.py``) and draws with no violation and no console error; another
site cannot frame it; and a person changes the password and signs out everywhere from their page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from services.gateway.security_headers import POLICY
from tests.browser.people import PASSWORD, sign_with_form
from tests.support.client import create, wait_until
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

NEW_PASSWORD = "another long password"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def watched(browser: Any) -> tuple[Any, list[str]]:
    """A page of a browser of its own, whose console errors and CSP violations are collected."""
    page = browser.new_context(viewport={"width": 1360, "height": 1000}).new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => "
        "console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    return page, problems


def test_every_page_draws_under_the_policy_with_no_violation(browser: Any, stack: ServerThread) -> None:
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        game = create(api, "race", 2)
        assert api.post("/api/accounts", json={"name": "ann", "password": PASSWORD}).status_code == 201
        tournament = {
            "game": "manila",
            "players": 3,
            "bots": ["greedy"],
            "rounds": 1,
            "table_size": 3,
            "id": "tcsp",
        }
        assert api.post("/api/tournaments", json=tournament).status_code == 201
    pages = {
        "/": "#account-form",
        f"/games/{game['game_id']}": "#players > *",
        "/players/ann": "h1",
        "/leaderboards/race": "h1",
        "/tournaments": "main",
        "/tournaments/tcsp": "main",
    }
    page, problems = watched(browser)
    for path, drawn in pages.items():
        answer = page.goto(f"{stack.base}{path}")
        headers = answer.all_headers()
        assert headers["content-security-policy"] == POLICY, path
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        page.locator(drawn).first.wait_for()
        page.wait_for_load_state("networkidle")
        assert [p for p in problems if "CSP" in p or "Content Security Policy" in p] == [], path
    assert problems == [], problems


def test_another_site_cannot_frame_a_page(browser: Any, stack: ServerThread) -> None:
    """The lobby in another site's frame: refused by Chromium. Control: the same answer with the two
    headers taken off is shown in the frame."""
    evil = f'<iframe id="f" src="{stack.base}/"></iframe>'
    for stripped in (False, True):
        page, _ = watched(browser)
        page.route(
            "http://evil.example/",
            lambda route: route.fulfill(status=200, content_type="text/html", body=evil),
        )
        if stripped:
            page.route(f"{stack.base}/", lambda route: route.fulfill(response=(r := route.fetch()), headers={
                k: v for k, v in r.headers.items() if k not in ("content-security-policy", "x-frame-options")}))  # fmt: skip
        page.goto("http://evil.example/")
        page.wait_for_load_state("networkidle")
        framed = page.frames[-1]
        if stripped:
            assert framed.url == f"{stack.base}/"
        else:
            assert framed.url == "chrome-error://chromewebdata/"  # what Chromium shows for a refused frame
        page.context.close()


def test_a_person_changes_the_password_and_signs_out_everywhere(browser: Any, stack: ServerThread) -> None:
    laptop, problems = watched(browser)
    laptop.goto(f"{stack.base}/")
    sign_with_form(laptop, "ann")
    phone = httpx.Client(base_url=stack.base, timeout=30)  # another device, signed in too
    assert phone.post("/api/session", json={"name": "ann", "password": PASSWORD}).status_code == 200
    laptop.goto(f"{stack.base}/players/ann")
    security = laptop.locator("#security")
    security.locator("input[name=password]").fill("not the password")
    security.locator("input[name=new_password]").fill(NEW_PASSWORD)
    security.locator("#change-password").click()
    laptop.locator("#security-message .notice.error").wait_for()
    assert phone.get("/api/session").json() == {"name": "ann"}  # a wrong old password changed nothing
    security.locator("input[name=password]").fill(PASSWORD)
    security.locator("input[name=new_password]").fill(NEW_PASSWORD)
    security.locator("#change-password").click()
    laptop.locator("#security-message .notice.ok").wait_for()
    assert phone.get("/api/session").json() == {"name": None}  # the other device is signed out
    again = httpx.Client(base_url=stack.base, timeout=30)
    assert again.post("/api/session", json={"name": "ann", "password": NEW_PASSWORD}).status_code == 200
    laptop.locator("#sign-out-everywhere").click()
    laptop.wait_for_url(f"{stack.base}/")
    laptop.locator("#account-form").wait_for()  # the lobby offers to sign in again
    wait_until(lambda: again.get("/api/session").json() == {"name": None})
    assert [p for p in problems if "403" not in p] == [], problems  # the wrong password's 403 only
