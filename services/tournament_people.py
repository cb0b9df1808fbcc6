"""People as tournament entrants: their keys (made once, at creation) and the link to their current table.

See ``workers/jobs/people.py`` for how a key becomes a seat token at each of the person's tables.
"""

from __future__ import annotations

import secrets
from typing import Any

from domain.tournament import State
from events.tournament_store import tournament_key
from services.bootstrap import Services
from services.gateway.access.auth import digest, new_secret
from workers.jobs.people import people_key


def organiser_key_field(tournament_id: str) -> str:
    return tournament_key(tournament_id, "organiser")


def make_organiser_key(services: Services, tournament_id: str) -> str:
    """The tournament's own organiser key (192 bits, shown once; only its digest is stored): what the
    organiser actions over HTTP take, as well as the server's admin token."""
    key = new_secret()
    services.redis.set(organiser_key_field(tournament_id), digest(key))
    return key


def organiser_ok(services: Services, tournament_id: str, key: str | None) -> bool:
    """Whether ``key`` is this tournament's organiser key (a person's or another tournament's is not)."""
    stored = services.redis.get(organiser_key_field(tournament_id))
    return bool(stored) and key is not None and secrets.compare_digest(stored, digest(key).encode())


def make_keys(services: Services, tournament_id: str, people: list[int]) -> dict[int, str]:
    """A fresh secret per person (192 bits, URL-safe); only their digests are stored."""
    made = {player: new_secret() for player in people}
    if made:
        services.redis.hset(
            people_key(tournament_id), mapping={str(p): digest(key) for p, key in made.items()}
        )
    return made


def player_of(services: Services, tournament_id: str, key: str) -> int | None:
    """The person a key belongs to, or ``None`` for a key of nobody in this tournament."""
    wanted = digest(key).encode()
    for player, stored in services.redis.hgetall(people_key(tournament_id)).items():
        if secrets.compare_digest(stored, wanted):
            return int(player)
    return None


def current_table(state: State, player: int, key: str) -> dict[str, Any]:
    """Where the person plays now: the latest round's table that seats them (a bye: no game), with the
    link that opens it in the web client with their seat (the key stays in the URL's fragment, which
    browsers never send to a server)."""
    body: dict[str, Any] = {"player": player, "name": state.entrants[player].name, "round": 0,
                            "game_id": None, "seat": None, "finished": False, "link": None}  # fmt: skip
    if not state.rounds:
        return body
    played = state.rounds[-1]
    body["round"] = played.number
    for index, (players, game_id) in enumerate(zip(played.pairing.tables, played.games, strict=True)):
        if player in players:
            body |= {
                "game_id": game_id,
                "seat": players.index(player),
                "link": f"/games/{game_id}#token={key}",
            }
            body["finished"] = played.results[index] is not None
    return body


def hand_over(services: Services, state: State, player: int) -> str:
    """A new key for ``player``'s place (after ``PlayerReplaced``): the old key stops opening their seat
    at the current table and every later one, the new key opens it; their seat shows the new name."""
    from events import keys
    from workers.jobs.round_open import name_seats

    tid = state.tournament_id
    old = services.redis.hget(people_key(tid), str(player))
    key = new_secret()
    services.redis.hset(people_key(tid), str(player), digest(key))
    current = state.current()
    if current is None:
        return key
    for players, game_id in zip(current.pairing.tables, current.games, strict=True):
        if player in players:
            tokens = keys.game_key(game_id, "tokens")
            pipe = services.redis.pipeline(transaction=True)
            if old:
                pipe.hdel(tokens, old)
            pipe.hset(tokens, digest(key), players.index(player))
            pipe.execute()
            name_seats(services.redis, game_id, [state.entrants[p].name for p in players])
    return key
