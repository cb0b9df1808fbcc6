"""The transport's contract (``tests/integration/transport/contract.py``) on the real local Cluster, for the Cluster forms
of the fast implementations (``ClusterMultiplexed``, ``ClusterScriptPipeline``) and the plain ones on
redis-py's Cluster clients: calls and script calls whose keys live on different masters."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis.asyncio.cluster as aiocluster
from redis.cluster import RedisCluster

from events.transport.interface import Appender, Link
from events.transport.multiplexed_cluster import ClusterMultiplexed, SlotMap
from events.transport.pipelined_cluster import ClusterScriptPipeline
from events.transport.plain import PlainAppender, PlainLink
from tests.integration.transport import contract
from tests.support.redis_cluster import LocalCluster


def _links(cluster: LocalCluster) -> dict[str, Callable[[], Link]]:
    return {
        "multiplexed": lambda: ClusterMultiplexed(cluster.url, SlotMap(cluster.url)),
        "plain": lambda: PlainLink(aiocluster.RedisCluster(host="127.0.0.1", port=cluster.ports[0])),
    }


APPENDERS: dict[str, Callable[[RedisCluster, str], Appender]] = {
    "pipelined": ClusterScriptPipeline,
    "plain": PlainAppender,
}


@pytest.mark.parametrize("kind", ["multiplexed", "plain"])
def test_calls_come_back_in_order_and_errors_in_their_place(
    kind: str, redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    contract.calls_come_back_in_order_and_errors_in_their_place(_links(redis_cluster)[kind])


@pytest.mark.parametrize("kind", ["multiplexed", "plain"])
def test_a_submit_appends_to_the_inbox_and_answers_an_earlier_result(
    kind: str, redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    contract.a_submit_appends_to_the_inbox_and_answers_an_earlier_result(
        _links(redis_cluster)[kind], cluster_client
    )


@pytest.mark.parametrize("kind", APPENDERS)
def test_batches_written_ahead_come_back_in_order(kind: str, cluster_client: RedisCluster) -> None:
    contract.batches_written_ahead_come_back_in_order(lambda script: APPENDERS[kind](cluster_client, script))


@pytest.mark.parametrize("kind", APPENDERS)
def test_an_error_reply_is_its_exception_in_its_place(kind: str, cluster_client: RedisCluster) -> None:
    contract.an_error_reply_is_its_exception_in_its_place(
        lambda script: APPENDERS[kind](cluster_client, script)
    )


@pytest.mark.parametrize("kind", APPENDERS)
def test_a_lost_script_cache_is_answered_then_loaded_again(kind: str, cluster_client: RedisCluster) -> None:
    contract.a_lost_script_cache_is_answered_then_loaded_again(
        lambda script: APPENDERS[kind](cluster_client, script),
        lambda: cluster_client.execute_command("SCRIPT FLUSH", target_nodes=RedisCluster.PRIMARIES),
    )
