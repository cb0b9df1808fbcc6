"""Telling a Redis Cluster from a standalone Redis: ``events/connection.py``, which the rq jobs use as well
(the workers layer cannot import ``services``); the services name it here."""

from __future__ import annotations

from events.connection import (
    CLUSTER_SCHEME,
    connect,
    is_cluster,
    is_cluster_client,
    node_url,
)

__all__ = ["CLUSTER_SCHEME", "connect", "is_cluster", "is_cluster_client", "node_url"]
