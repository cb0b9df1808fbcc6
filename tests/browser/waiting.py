"""Waiting for the page without ``page.wait_for_function``: Playwright builds that predicate with
``new Function`` inside the page, which the gateway's Content-Security-Policy (no 'unsafe-eval') refuses.
``page.evaluate`` runs over the DevTools protocol, outside the policy, so the test polls with it."""

from __future__ import annotations

from typing import Any

POLL_MS = 50


def wait_until(page: Any, script: str, arg: Any = None, timeout_ms: int = 20_000) -> Any:
    """Polls ``script`` (a JavaScript function of ``arg``, or an expression) until it is truthy and
    returns its value; raises ``TimeoutError`` naming the script once ``timeout_ms`` has passed."""
    waited = 0
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        if waited >= timeout_ms:
            raise TimeoutError(f"still false after {timeout_ms} ms: {script}")
        page.wait_for_timeout(POLL_MS)
        waited += POLL_MS
