"""People as tournament entrants: their keys (made once, at creation) and the link to their current table.

See ``workers/jobs/people.py`` for how a key becomes a seat token at each of the person's tables.
"""

from __future__ import annotations

import secrets
from typing import Any

from domain.tournament import State
from services.bootstrap import Services
from services.gateway.auth import digest, new_secret
from workers.jobs.people import people_key


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
