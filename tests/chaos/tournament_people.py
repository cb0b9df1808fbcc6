"""The tournament chaos run's people and organiser, over HTTP as a browser or a script would act, riding out
every fault (``clients.Api`` retries connection errors and 5xx).

A person asks the tournament for their current table with their key (``you``), and moves there with the same
key while it is their turn; a person whose key stops opening their place (the organiser replaced them) stops.
The organiser withdraws a player once round 1's games have ended (the tournament paused until then, so round
2 is paired without him) and gives a person's place to a newcomer in the middle of a game.
"""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

from tests.chaos.clients import Api
from tests.chaos.tournament_plan import Person, Plan

PASSES = frozenset({"Pass", "PassBid", "PassPlacement", "PassPilot", "SkipShare", "EndTurn", "StayAboard"})
BORROWING = frozenset({"TakeLoan", "ExtendLoan", "PledgeStartShare"})
"""``domain/clock.default_move``'s rule, applied to the legal list the API sends: the clock's own move."""
POLL_S = 0.3


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def default_choice(legal: list[Any]) -> Any:
    """What the clock would play for the seat: a pass where one is legal, else the first legal command that
    does not borrow (the legal list is in the game's own order)."""
    for command in legal:
        if command.get("type") in PASSES:
            return command
    unforced = [c for c in legal if c.get("type") not in BORROWING]
    return (unforced or legal)[0]


class PersonClient:
    """One person's key playing their tables; ``moves`` counts the moves the service accepted from them,
    ``games`` the games they moved in (and ``live_moved`` the one they moved in last, still live then)."""

    def __init__(self, base: str, tid: str, person: Person, key: str, seed: int) -> None:
        self.api = Api(base)
        self.tid, self.person, self.key = tid, person, key
        self.rng = random.Random(seed)
        self.moves = 0
        self.games: list[str] = []
        self.replaced = False
        self.current: tuple[str, int] | None = None
        """The game and seat of the table being played (asked of the tournament again once it is over)."""
        self.error: str | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"person-{tid}-{person.name}", daemon=True)

    def _run(self) -> None:
        try:
            while not self.stop.is_set() and not self.replaced and not self._done_moving():
                if not self._step():
                    self.stop.wait(POLL_S)
        except Exception as exc:  # reported by the run, never a silent death
            self.error = f"{self.person.name}: {type(exc).__name__}: {exc}"
        finally:
            self.api.close()

    def _done_moving(self) -> bool:
        return self.person.moves is not None and self.moves >= self.person.moves

    def _step(self) -> bool:
        """One move if it is this person's turn; False when there was nothing to do."""
        if self.current is None and not self._find_table():
            return False
        assert self.current is not None
        game_id, seat = self.current
        game = self.api.call("GET", f"/api/games/{game_id}").json()
        if game.get("status") != "live":
            self.current = None  # over: the next table comes with the next round
            return False
        if seat not in game.get("to_act", []):
            return False
        legal = self.api.call("GET", f"/api/games/{game_id}/legal", headers=bearer(self.key))
        if legal.status_code in (401, 403):
            self.replaced = True
            return False
        commands = legal.json()
        if not commands:
            return False
        command = default_choice(commands) if self.person.default else self.rng.choice(commands)
        return self._send(game_id, command)

    def _find_table(self) -> bool:
        """The person's current table, as their page asks for it (with their key)."""
        answer = self.api.call("GET", f"/api/tournaments/{self.tid}", headers=bearer(self.key))
        if answer.status_code in (401, 403):
            self.replaced = True  # the organiser gave the place to someone else: this key opens nothing
            return False
        you = answer.json().get("you") or {}
        if you.get("game_id") is None or you.get("finished"):
            return False
        self.current = (you["game_id"], you["seat"])
        return True

    def _send(self, game_id: str, command: Any) -> bool:
        command_id = f"p-{self.person.name}-{self.moves}-{self.rng.getrandbits(32):08x}"
        body = json.dumps({"command": command, "command_id": command_id}).encode()
        headers = {**bearer(self.key), "Content-Type": "application/json"}
        path = f"/api/games/{game_id}/commands"
        answer = self.api.call("POST", path, params={"wait": "true"}, content=body, headers=headers)
        if answer.status_code not in (200, 202):
            return False  # refused (the clock moved first, or the key was replaced): look again
        deadline = time.monotonic() + 60
        outcome = answer.json()
        while outcome.get("status") == "pending" and time.monotonic() < deadline:
            time.sleep(0.1)  # same id: asked again, never applied twice
            outcome = self.api.call("GET", f"{path}/{command_id}", headers=bearer(self.key)).json()
        if outcome.get("status") == "applied":
            self.moves += 1
            if game_id not in self.games:
                self.games.append(game_id)
        return True


class Organiser:
    """The organiser's script for one tournament: start it; for a withdrawal, pause at once and withdraw
    once round 1's games have ended, then resume; for a replacement, once the person has made three moves
    in a live game, give the place to a newcomer, who plays on."""

    def __init__(self, base: str, plan: Plan, key: str, seed: int) -> None:
        self.api = Api(base)
        self.base, self.plan, self.key, self.seed = base, plan, key, seed
        self.withdrawn_at: int | None = None
        """The round the tournament was in when the withdrawal was recorded."""
        self.replaced_mid_game: bool | None = None
        self.newcomer: PersonClient | None = None
        self.error: str | None = None
        self.stop = threading.Event()
        self.people: list[PersonClient] = []
        self.thread = threading.Thread(target=self._run, name=f"organiser-{plan.tid}", daemon=True)

    def act(self, verb: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One organiser call; a retry after a lost answer may find it done (409): the state is read back."""
        path = f"/api/tournaments/{self.plan.tid}/{verb}"
        answer = self.api.call("POST", path, json=body or {}, headers=bearer(self.key))
        if answer.status_code not in (200, 409):
            raise RuntimeError(f"{verb}: {answer.status_code} {answer.text[:200]}")
        return dict(answer.json())

    def _run(self) -> None:
        try:
            if self.plan.withdraw is not None:
                self._withdraw(self.plan.withdraw)
            if self.plan.replace is not None:
                self._replace(*self.plan.replace)
        except Exception as exc:
            self.error = f"organiser of {self.plan.tid}: {type(exc).__name__}: {exc}"
        finally:
            self.api.close()

    def info(self) -> dict[str, Any]:
        return dict(self.api.call("GET", f"/api/tournaments/{self.plan.tid}").json())

    def _withdraw(self, player: int) -> None:
        while not self.stop.is_set():
            rounds = self.info()["rounds_played"]
            games = [t["game_id"] for t in rounds[0]["tables"]] if rounds else []
            status = [self.api.call("GET", f"/api/games/{g}").json()["status"] for g in games]
            if games and all(s == "finished" for s in status):
                break
            self.stop.wait(0.5)
        self.act("withdraw", {"player": player, "reason": "leaves after round 1"})
        self.withdrawn_at = self.info()["round"]
        self.act("resume")

    def _replace(self, player: int, name: str) -> None:
        person = self.people[player]
        while not self.stop.is_set() and not (person.moves >= 3 and person.games):
            self.stop.wait(0.2)
        answer = self.api.call(
            "POST", f"/api/tournaments/{self.plan.tid}/replace", json={"player": player, "name": name},
            headers=bearer(self.key),
        )  # fmt: skip
        if answer.status_code != 200:
            raise RuntimeError(f"replace: {answer.status_code} {answer.text[:200]}")
        key = answer.json()["people"][0]["key"]
        game = self.api.call("GET", f"/api/games/{person.games[-1]}").json()
        self.replaced_mid_game = game["status"] == "live"
        self.newcomer = PersonClient(self.base, self.plan.tid, Person(name), key, self.seed + 1)
        self.newcomer.thread.start()
