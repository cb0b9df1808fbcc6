"""The gateway's Cluster wire, the parts that need no Redis: node URLs, the slot map, each call's slot, the
polling schedule.
(On a real cluster: ``tests/cluster/test_gateway_on_cluster.py``.)"""

from __future__ import annotations

from redis.crc import key_slot

from events import keys
from events.transport.slots import SLOTS, node_url, owners_from_slots, seed_node, slot_of
from services.gateway.feeds.polling import POLL_FIRST_S, POLL_MOST_S, PollSchedule


def test_a_node_url_keeps_the_credentials_and_drops_the_database() -> None:
    url = "redis+cluster://app:s3cret@10.0.0.1:7000/0?socket_timeout=3"
    assert seed_node(url) == ("10.0.0.1", 7000)
    assert node_url(url, ("10.0.0.2", 7001)) == "redis://app:s3cret@10.0.0.2:7001?socket_timeout=3"
    assert node_url("redis://10.0.0.1:7000/0", ("10.0.0.3", 7002)) == "redis://10.0.0.3:7002"


def test_the_slot_map_names_each_slots_master_and_an_empty_host_is_the_node_asked() -> None:
    reply = [
        [0, 5460, [b"10.0.0.1", 7000, b"id1"], [b"10.0.0.4", 7003, b"id4"]],
        [5461, 10922, [b"", 7001, b"id2"]],
        [10923, 16383, [b"10.0.0.3", 7002, b"id3"]],
    ]
    owners = owners_from_slots(reply, ("10.0.0.9", 7009))
    assert len(owners) == SLOTS
    assert owners[0] == owners[5460] == ("10.0.0.1", 7000)
    assert owners[5461] == owners[10922] == ("10.0.0.9", 7001)
    assert owners[10923] == owners[16383] == ("10.0.0.3", 7002)


def test_a_calls_slot_is_its_keys_and_an_xreads_is_its_streams() -> None:
    game_slot = key_slot(keys.events("g1").encode())
    assert slot_of(("HGET", keys.results("g1"), "field")) == game_slot
    assert slot_of(("XREAD", "COUNT", 10, "STREAMS", keys.events("g1"), "0-0")) == game_slot
    assert slot_of(("XADD", keys.inbox(3), "*", "m", b"x")) == key_slot(keys.inbox(3).encode())


def test_a_game_is_read_soon_after_news_and_less_often_while_quiet() -> None:
    schedule = PollSchedule()
    assert schedule.due(["a", "b"], now=0.0) == ["a", "b"]  # never read: due at once
    schedule.read("a", news=True, now=1.0)
    schedule.read("b", news=False, now=1.0)
    assert schedule.due(["a", "b"], now=1.0 + POLL_FIRST_S) == ["a", "b"]
    pauses = []
    for _ in range(8):  # quiet: the pause doubles up to its longest
        now = schedule.next_at(["b"])
        schedule.read("b", news=False, now=now)
        pauses.append(round(schedule.next_at(["b"]) - now, 6))
    assert pauses[0] == 2 * POLL_FIRST_S and pauses[-1] == POLL_MOST_S
    assert pauses == sorted(pauses)
    schedule.wake("b")  # a command submitted to it: due at once, followed closely
    assert schedule.due(["b"], now=0.0) == ["b"]
    schedule.read("b", news=False, now=5.0)
    assert schedule.next_at(["b"]) == 5.0 + POLL_FIRST_S
