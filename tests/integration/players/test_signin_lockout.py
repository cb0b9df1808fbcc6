"""Issue 43, findings 12 and 15 (sign-in): each attack made, then the refusal asserted.

- 12: ten wrong passwords a minute on a name, from any addresses, had the owner refused (429) with the right
  password for as long as it went on. Now the windows are per (name, address) pair, and a name under attack
  is tried only from addresses that signed in to it before.
- 15: a hundred addresses signing in within their limits had everyone's sign-in wait 6.6 s behind Argon2.
  Now past the hashers' queue a sign-in is refused at once, 503 ``busy``.

Each client here has an address of its own: it connects from another loopback address (127.0.0.x), as
different machines would, with nothing forwarded."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import redis

from services.gateway.access import signin_guard
from services.gateway.access.sessions import PlayersState
from services.players import accounts
from services.players.settings import PlayerSettings
from tests.support.client import wait_until
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

PASSWORD = "correct horse battery"
OWNER = "127.0.0.2"
SETTINGS = PlayerSettings(signin_per_name=3, signin_per_address=30, signin_failures_per_name=6)


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, players=SETTINGS) as server:
        yield server


def client_at(stack: ServerThread, address: str) -> httpx.Client:
    """A client whose connections come from ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=stack.base, timeout=30, transport=transport)


def sign_in(client: httpx.Client, password: str, name: str = "ann") -> httpx.Response:
    return client.post("/api/session", json={"name": name, "password": password})


def test_guessing_from_many_addresses_never_locks_the_owner_out(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    with client_at(stack, OWNER) as owner:
        assert owner.post("/api/accounts", json={"name": "ann", "password": PASSWORD}).status_code == 201
    # The attack: wrong passwords on ann's name from one address after another, each to its 429.
    guesses: list[int] = []
    for n in range(3, 8):
        with client_at(stack, f"127.0.0.{n}") as attacker:
            guesses += [sign_in(attacker, f"guess number {k}").status_code for k in range(4)]
    assert guesses.count(401) == 6 and set(guesses) == {401, 429}  # 3 a pair, then under attack: refused
    # The owner, at the address they signed up from, still gets in with the right password.
    with client_at(stack, OWNER) as owner:
        assert sign_in(owner, PASSWORD).status_code == 200
        assert owner.get("/api/session").json() == {"name": "ann"}
    # A new address, even with the right password, waits until the attack is over (and says why).
    with client_at(stack, "127.0.0.20") as newcomer:
        refused = sign_in(newcomer, PASSWORD)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert "under attack" in refused.json()["message"]
    # What the account keeps of the owner's address is a digest, never the address.
    known = redis_client.smembers(signin_guard.known_key("ann"))
    assert known == {signin_guard.address_tag(OWNER).encode()}


def test_an_attacker_hammering_from_one_address_uses_up_only_its_own_pair(stack: ServerThread) -> None:
    with client_at(stack, OWNER) as owner:
        assert owner.post("/api/accounts", json={"name": "ann", "password": PASSWORD}).status_code == 201
    with client_at(stack, "127.0.0.3") as attacker:
        statuses = [sign_in(attacker, f"guess {k}").status_code for k in range(5)]
        right = sign_in(attacker, PASSWORD)  # the right password from the attacker's pair: still refused
    assert statuses == [401, 401, 401, 429, 429] and right.status_code == 429
    assert "from this address" in right.json()["message"]
    with client_at(stack, "127.0.0.4") as elsewhere:  # a new address: 3 failures is no attack yet
        assert sign_in(elsewhere, PASSWORD).status_code == 200


class GatedHashing(accounts.Hashing):
    """The gateway's hashers, each held at a gate before it hashes: the queue fills while the test looks."""

    def __init__(self, queue: int) -> None:
        super().__init__(queue)
        self.gate = threading.Event()

    async def run(self, work: Any, *args: str, known: bool = False) -> Any:
        def gated(*values: str) -> Any:
            self.gate.wait(60)
            return work(*values)

        return await super().run(gated, *args, known=known)


def test_a_full_hashing_queue_refuses_at_once_instead_of_everyone_waiting(stack: ServerThread) -> None:
    with client_at(stack, OWNER) as owner:
        assert owner.post("/api/accounts", json={"name": "ann", "password": PASSWORD}).status_code == 201
    hashing = GatedHashing(queue=2)
    players = stack.app.state.players = PlayersState(SETTINGS)
    players.hashing = hashing
    room = accounts.HASHING_AT_ONCE + hashing.queue

    def attempt(n: int) -> int:
        with client_at(stack, f"127.0.1.{n}") as client:
            return sign_in(client, PASSWORD if n == 0 else "not it").status_code

    def owner_signs_in() -> int:
        with client_at(stack, OWNER) as owner:
            return sign_in(owner, PASSWORD).status_code

    with ThreadPoolExecutor(room + 1) as pool:
        held = [pool.submit(attempt, n) for n in range(room)]
        wait_until(lambda: hashing.admitted == room, timeout=30)
        # The queue is full, its sign-ins held: one more is answered now, while they still wait.
        with client_at(stack, "127.0.2.1") as late:
            busy = sign_in(late, PASSWORD)
        assert busy.status_code == 503 and busy.json()["error"] == "busy"
        assert busy.headers["Retry-After"] == "1"
        assert not any(future.done() for future in held)
        # The owner, from the address the account was made at, takes one of the places kept for them.
        owners = pool.submit(owner_signs_in)
        wait_until(lambda: hashing.admitted == room + 1, timeout=30)
        hashing.gate.set()
        assert sorted(future.result(timeout=60) for future in held) == [200] + [401] * (room - 1)
        assert owners.result(timeout=60) == 200
    assert hashing.admitted == 0
    with client_at(stack, "127.0.2.1") as late:  # the queue drained: the refused one gets in now
        assert sign_in(late, PASSWORD).status_code == 200
