"""Fixtures for gateway tests: the whole stack on the session's real Redis (``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from services.redis_launcher import EmbeddedRedis
from tests.support.harness import ServerThread, running_stack


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """Gateway, fold worker and bot player on a flushed Redis."""
    with running_stack(redis_url) as server:
        yield server


@pytest.fixture
def api(stack: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.base, timeout=30) as client:
        yield client


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis this test may stop, refuse writes on, or start again (the session's is shared by every test
    of the process)."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        yield server
