"""The fold worker's own connections (``workers/wire.py``): calls written at once, replies read later by
the wire's own reader, in the order sent."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import redis

from services.redis_launcher import EmbeddedRedis
from workers.wire import SEND_BUFFER, ScriptWire, Wire

pytestmark = pytest.mark.redis

ECHO = "return {KEYS, ARGV}"


def test_replies_come_back_in_the_order_the_calls_were_sent(redis_client: redis.Redis) -> None:
    wire = Wire(redis_client)
    wire.send([("SET", "a", "1"), ("INCR", "a"), ("GET", "a")])
    wire.send([("RPUSH", "l", "x", "y"), ("LRANGE", "l", 0, -1)])
    assert wire.outstanding == 5
    assert wire.receive(3) == [b"OK", 2, b"2"]
    assert wire.receive(2) == [2, [b"x", b"y"]]
    assert wire.outstanding == 0
    wire.close()


def test_an_error_reply_comes_back_as_its_exception_and_the_replies_after_it_still_come(
    redis_client: redis.Redis,
) -> None:
    wire = Wire(redis_client)
    wire.send([("INCRBY", "n", "not a number"), ("EVALSHA", "0" * 40, 0), ("PING",)])
    failed, missing_script, pong = wire.receive(3)
    assert isinstance(failed, redis.ResponseError) and "not an integer" in str(failed)
    assert isinstance(missing_script, redis.exceptions.NoScriptError)
    assert pong == b"PONG"
    wire.close()


def test_a_false_reply_of_resp3_is_a_reply_not_a_wait_for_more(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, protocol=3)
    wire = Wire(client)
    wire.send([("EVAL", "redis.setresp(3); return false", 0), ("PING",)])
    assert wire.receive(2) == [False, b"PONG"]
    wire.close()
    client.close()


def test_a_reply_larger_than_one_read_is_put_together_from_several(redis_client: redis.Redis) -> None:
    big = b"z" * 300_000
    wire = Wire(redis_client)
    wire.send([("SET", "big", big), ("GET", "big"), ("STRLEN", "big")])
    assert wire.receive(3) == [b"OK", big, len(big)]
    wire.close()


def test_a_script_call_packed_with_its_keys_once_is_the_call_redis_runs(redis_client: redis.Redis) -> None:
    wire = ScriptWire(redis_client, ECHO)
    keys, args = ("hm:{g:1}:events", "hm:{g:1}:results"), ["append", 7, b"\x00bytes\r\n", "text"]
    assert wire.pack_call(keys, args) == wire.pack([wire.call(keys, args)])
    wire.send_packed(wire.pack_call(keys, args) + wire.pack_call((), []), 2)
    assert wire.receive(2) == [
        [list(k.encode() for k in keys), [b"append", b"7", b"\x00bytes\r\n", b"text"]],
        [[], []],
    ]
    wire.close()


def test_a_connection_that_redis_closes_is_an_error_and_the_wire_starts_afresh(
    redis_client: redis.Redis,
) -> None:
    wire = Wire(redis_client)
    wire.send([("CLIENT", "ID")])
    (client_id,) = wire.receive(1)
    redis_client.client_kill_filter(_id=client_id)
    with pytest.raises(redis.ConnectionError):  # on the write, or on the read of its reply
        wire.send([("PING",)])
        wire.receive(1)
    assert wire.outstanding == 0
    wire.send([("PING",)])
    assert wire.receive(1) == [b"PONG"]
    wire.close()


def test_a_wire_on_a_unix_socket_may_queue_a_whole_batch_unread(tmp_path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url)
        wire = Wire(client)
        wire.send([("PING",)])
        assert wire.receive(1) == [b"PONG"]
        connection: Any = wire._connection
        granted = connection._sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        allowed = int(Path("/proc/sys/net/core/wmem_max").read_text())
        assert granted >= min(SEND_BUFFER, allowed)  # Linux reports twice what it was asked for
        wire.close()
        client.close()
