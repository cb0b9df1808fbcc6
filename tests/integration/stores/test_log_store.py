"""The transparency log's contract (``tests/integration/stores/log_store_contract.py``) on one standalone Redis."""

from __future__ import annotations

import pytest
import redis

from tests.integration.stores.log_store_contract import LogStoreContract


class TestLogStoreOnRedis(LogStoreContract):
    @pytest.fixture
    def client(self, redis_client: redis.Redis) -> redis.Redis:
        return redis_client
