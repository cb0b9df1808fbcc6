"""The tournament store's contract (``tests/integration/stores/tournament_store_contract.py``) on one standalone Redis."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis

from tests.integration.stores.tournament_store_contract import TournamentStoreContract


class TestTournamentStoreOnRedis(TournamentStoreContract):
    @pytest.fixture
    def client(self, redis_client: redis.Redis) -> redis.Redis:
        return redis_client  # flushed before and after

    @pytest.fixture
    def connect(self, redis_url: str) -> Callable[[], redis.Redis]:
        return lambda: redis.Redis.from_url(redis_url)
