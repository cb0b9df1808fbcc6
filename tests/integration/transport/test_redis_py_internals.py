"""The two of redis-py's private attributes the transports read, checked on a real connection (``redis`` is
pinned below its next minor for them: ``tests/unit/contract/test_pinned_internals.py``), so that an upgrade
that changes one fails here, by name: ``events/transport/pipelined.py`` reads the sync connection's socket
(``Connection._sock``: it widens the send buffer and reads replies itself), ``events/transport/multiplexed.py``
the asyncio connection's stream writer (``Connection._writer.transport``: it hands the transport to a protocol
of its own)."""

from __future__ import annotations

import asyncio
import socket

import redis
import redis.asyncio as aioredis


def test_redis_pys_sync_connection_keeps_its_socket_in_sock(redis_url: str) -> None:
    """``Pipelined`` widens ``connection._sock``'s send buffer and reads its replies from it."""
    connection = redis.Redis.from_url(redis_url).connection_pool.make_connection()
    assert connection._sock is None  # set on connect, not before
    connection.connect()
    try:
        assert isinstance(connection._sock, socket.socket)
        connection.send_command("PING")
        assert connection._sock.recv(64) == b"+PONG\r\n"  # the reply is on the socket, unread by redis-py
    finally:
        connection.disconnect()


def test_redis_pys_asyncio_connection_keeps_its_transport_under_writer(redis_url: str) -> None:
    """``MultiplexedLink`` takes ``connection._writer.transport`` and sets a protocol of its own on it."""

    async def transport_of_a_connection() -> tuple[bool, bool, bool]:
        connection = aioredis.Redis.from_url(redis_url).connection_pool.make_connection()
        await connection.connect()
        try:
            transport = connection._writer.transport
            return (
                isinstance(connection._writer, asyncio.StreamWriter),
                isinstance(transport, asyncio.Transport),
                callable(getattr(transport, "set_protocol", None)),
            )
        finally:
            await connection.disconnect()

    assert asyncio.run(transport_of_a_connection()) == (True, True, True)
