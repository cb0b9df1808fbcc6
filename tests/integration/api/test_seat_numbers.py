"""Issue 43, finding 18: a seat number in client text was read with ``str.isdigit`` and ``int``:
``"bots": {"²": "greedy"}`` answered 500 (``int('²')`` after ``isdigit()``), and ``"١"`` (an Arabic-Indic
one) was taken as seat 1. Seat numbers are ASCII digits now, everywhere a client writes one."""

from __future__ import annotations

import socket

import httpx
import pytest

from tests.integration.cli.test_cli import hm
from tests.support.client import RawResponses, create
from tests.support.harness import ServerThread


@pytest.mark.parametrize("seat", ["²", "١", "٠", "1_0", " 1", "+1", "-1", "", "00001"])
def test_a_bot_seat_that_is_not_plain_ascii_digits_is_a_400_with_a_message(
    api: httpx.Client, seat: str
) -> None:
    answer = api.post("/api/games", json={"game": "race", "seats": 2, "bots": {seat: "greedy"}})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_bot_seat" and "ASCII digits" in answer.json()["message"]
    assert api.get("/api/games").json()["games"] == []  # nothing was made


def test_a_plain_bot_seat_is_still_taken_and_one_out_of_range_refused(api: httpx.Client) -> None:
    made = create(api, "race", 2, bots={"1": "random"})
    assert [s.get("bot") for s in made["seats"]] == [None, "random"]
    beyond = api.post("/api/games", json={"game": "race", "seats": 2, "bots": {"2": "greedy"}})
    assert beyond.status_code == 422 and beyond.json()["error"] == "bad_bot_seat"


def test_a_content_length_in_other_digits_is_no_500(stack: ServerThread) -> None:
    host, port = stack.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\n{}")
        status = RawResponses(sock).status_line()
    assert status.startswith(b"HTTP/1.1 4"), status


@pytest.mark.parametrize("seat", ["²", "١"])
def test_new_refuses_such_a_bot_seat_in_one_line(redis_url: str, redis_client: object, seat: str) -> None:
    made = hm("new", "race", "--seats", "2", "--bots", f'{{"{seat}": "random"}}', url=redis_url)
    assert made.returncode == 2 and b"ASCII digits" in made.stderr
    assert b"Traceback" not in made.stderr and made.stderr.count(b"\n") == 1


@pytest.mark.parametrize(
    "args",
    [
        ("send", "g", "١", '{"type": "Roll"}'),
        ("tournament", "withdraw", "t", "١"),
        ("tournament", "adjudicate", "t", "1", "²", "--ranking", "0", "--reason", "r"),
    ],
)
def test_the_command_line_takes_seat_player_and_table_numbers_in_ascii_digits_only(
    redis_url: str, redis_client: object, args: tuple[str, ...]
) -> None:
    refused = hm(*args, url=redis_url)
    assert refused.returncode == 2 and b"is not a number in ASCII digits" in refused.stderr
    assert b"Traceback" not in refused.stderr
