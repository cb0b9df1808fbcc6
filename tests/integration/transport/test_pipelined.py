"""The fold worker's own connections (``events/transport/pipelined.py``): calls written at once, replies read later by
the link's own reader, in the order sent."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import redis

from events.transport.pipelined import SEND_BUFFER, Pipelined, ScriptPipeline
from services.redis_launcher import EmbeddedRedis

ECHO = "return {KEYS, ARGV}"


def test_replies_come_back_in_the_order_the_calls_were_sent(redis_client: redis.Redis) -> None:
    link = Pipelined(redis_client)
    link.send([("SET", "a", "1"), ("INCR", "a"), ("GET", "a")])
    link.send([("RPUSH", "l", "x", "y"), ("LRANGE", "l", 0, -1)])
    assert link.outstanding == 5
    assert link.receive(3) == [b"OK", 2, b"2"]
    assert link.receive(2) == [2, [b"x", b"y"]]
    assert link.outstanding == 0
    link.close()


def test_an_error_reply_comes_back_as_its_exception_and_the_replies_after_it_still_come(
    redis_client: redis.Redis,
) -> None:
    link = Pipelined(redis_client)
    link.send([("INCRBY", "n", "not a number"), ("EVALSHA", "0" * 40, 0), ("PING",)])
    failed, missing_script, pong = link.receive(3)
    assert isinstance(failed, redis.ResponseError) and "not an integer" in str(failed)
    assert isinstance(missing_script, redis.exceptions.NoScriptError)
    assert pong == b"PONG"
    link.close()


def test_a_false_reply_of_resp3_is_a_reply_not_a_wait_for_more(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, protocol=3)
    link = Pipelined(client)
    link.send([("EVAL", "redis.setresp(3); return false", 0), ("PING",)])
    assert link.receive(2) == [False, b"PONG"]
    link.close()
    client.close()


def test_a_reply_larger_than_one_read_is_put_together_from_several(redis_client: redis.Redis) -> None:
    big = b"z" * 300_000
    link = Pipelined(redis_client)
    link.send([("SET", "big", big), ("GET", "big"), ("STRLEN", "big")])
    assert link.receive(3) == [b"OK", big, len(big)]
    link.close()


def test_a_script_call_packed_with_its_keys_once_is_the_call_redis_runs(redis_client: redis.Redis) -> None:
    link = ScriptPipeline(redis_client, ECHO)
    keys, args = ("hm:{g:1}:events", "hm:{g:1}:results"), ["append", 7, b"\x00bytes\r\n", "text"]
    assert link.pack_call(keys, args) == link.pack([link.call(keys, args)])
    link.send_packed(link.pack_call(keys, args) + link.pack_call((), []), 2)
    assert link.receive(2) == [
        [list(k.encode() for k in keys), [b"append", b"7", b"\x00bytes\r\n", b"text"]],
        [[], []],
    ]
    link.close()


def test_a_connection_that_redis_closes_is_an_error_and_the_wire_starts_afresh(
    redis_client: redis.Redis,
) -> None:
    link = Pipelined(redis_client)
    link.send([("CLIENT", "ID")])
    (client_id,) = link.receive(1)
    redis_client.client_kill_filter(_id=client_id)
    with pytest.raises(redis.ConnectionError):  # on the write, or on the read of its reply
        link.send([("PING",)])
        link.receive(1)
    assert link.outstanding == 0
    link.send([("PING",)])
    assert link.receive(1) == [b"PONG"]
    link.close()


def test_a_wire_on_a_unix_socket_may_queue_a_whole_batch_unread(tmp_path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url)
        link = Pipelined(client)
        link.send([("PING",)])
        assert link.receive(1) == [b"PONG"]
        connection: Any = link._connection
        granted = connection._sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        allowed = int(Path("/proc/sys/net/core/wmem_max").read_text())
        assert granted >= min(SEND_BUFFER, allowed)  # Linux reports twice what it was asked for
        link.close()
        client.close()
