"""Ratings that follow an account across games: one OpenSkill rating per account and game, moved by every
rated game its account sat in, with a history.

Which account holds which seat is written when a table's game is made (``services/players/tables.py``),
or a tournament's round game whose entrants are tied to accounts (``seat_tournament_accounts``):
``hm:{g:<id>}:accounts`` maps ``s:<seat>`` to an account and ``a:<account>`` back to its seat, with
``rated`` set for a rated game. When such a game ends, the fold worker's hook (``RatingTrigger``) rates its
table once: the update and the mark that it was made are one transaction under ``WATCH``, on keys of one
hash tag per game kind (``hm:{r:<game>}:…``, one Cluster slot), so a second trigger (a retry, a duplicate
command's hook, another worker) changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import msgspec
import redis
import structlog

from domain.engine import Outcome
from domain.tournament.ratings import Rating, rate_table
from events import keys
from events.log_store import enqueue
from events.store import LoadedGame
from events.tlog import leaves
from events.tournament_store import tournament_key
from workers.jobs.clock_due import cancelled

log = structlog.get_logger("ratings")

HISTORY_LIMIT = 1_000
"""Entries of an account's rating history kept per game kind."""


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    """One rated game in an account's history."""

    game_id: str
    place: int
    """0 for first; players sharing a place were rated as a tie."""
    players: int
    before: Rating
    after: Rating
    ts_ms: int


def seat_accounts_key(game_id: str) -> str:
    return keys.game_key(game_id, "accounts")


def account_games_key(account: str) -> str:
    """The games an account sits in (a sorted set by creation time)."""
    return f"hm:account:{account}:games"


def tournament_accounts_key(tournament_id: str) -> str:
    """A tournament's entrants tied to accounts (entrant index -> account), claimed with the person's key
    (``services/gateway/api/tournament_accounts.py``)."""
    return tournament_key(tournament_id, "accounts")


def seat_account(client: Any, game_id: str, seat: int, account: str) -> None:
    """Tie one seat of a game to an account (rated), and list the game among the account's."""
    pipe = client.pipeline(transaction=False)
    pipe.hset(seat_accounts_key(game_id), mapping={f"s:{seat}": account, f"a:{account}": seat, "rated": 1})
    pipe.zadd(account_games_key(account), {game_id: int(time.time() * 1000)}, nx=True)
    pipe.execute()


def seat_tournament_accounts(client: Any, tournament_id: str, game_id: str, players: Sequence[int]) -> None:
    """When a round's game is made: its seats whose entrants are tied to accounts (idempotent)."""
    claimed = {int(k): v.decode() for k, v in client.hgetall(tournament_accounts_key(tournament_id)).items()}
    for seat, player in enumerate(players):
        if player in claimed:
            seat_account(client, game_id, seat, claimed[player])


def ratings_key(game: str) -> str:
    return f"hm:{{r:{game}}}:ratings"


def board_key(game: str) -> str:
    """The leaderboard: accounts by ordinal (mu - 3 sigma)."""
    return f"hm:{{r:{game}}}:board"


def rated_key(game: str) -> str:
    return f"hm:{{r:{game}}}:rated"


def history_key(game: str, account: str) -> str:
    return f"hm:{{r:{game}}}:history:{account}"


def ranked_accounts(outcome: Outcome, seats: dict[str, str]) -> tuple[list[str], list[int]]:
    """The accounts in finishing order and each one's place among them (0 = first; winners share it).
    Seats without an account (bots, link players) are left out: accounts are rated against each other."""
    ranking: list[str] = []
    places: list[int] = []
    for seat in outcome.ranking:
        account = seats.get(f"s:{seat}")
        if account is not None:
            places.append(0 if seat in outcome.winners else len(ranking))
            ranking.append(account)
    return ranking, places


def decode_rating(raw: bytes | None) -> Rating:
    return msgspec.json.decode(raw, type=Rating) if raw else Rating()


def rate_game(client: Any, game_id: str, game: str, outcome: Outcome) -> bool:
    """Rate a finished game's accounts once; True if this call did it. Not rated: not a rated game, or fewer
    than two accounts at the table."""
    seats = {k.decode(): v.decode() for k, v in client.hgetall(seat_accounts_key(game_id)).items()}
    if seats.get("rated") != "1":
        return False
    ranking, places = ranked_accounts(outcome, seats)
    if len(ranking) < 2 or len(set(ranking)) != len(ranking):
        return False
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(rated_key(game), ratings_key(game))
                if pipe.sismember(rated_key(game), game_id):
                    return False
                before = {
                    a: decode_rating(raw)
                    for a, raw in zip(ranking, pipe.hmget(ratings_key(game), ranking), strict=True)
                }
                after = _rated(before, ranking, places)
                pipe.multi()
                _write(pipe, game_id, game, ranking, places, before, after)
                pipe.execute()
                break
            except redis.WatchError:
                continue
    log.info("game_rated", game_id=game_id, game=game, accounts=ranking)
    _log_ratings(client, game_id, ranking, places, after)
    return True


def _log_ratings(
    client: Any, game_id: str, ranking: list[str], places: list[int], after: dict[str, Rating]
) -> None:
    """Ask the service's log to hold each account's new rating (``workers/log_sequencer.py`` appends them). Its
    queue is in another Cluster slot than the ratings, so it is written after their transaction: a crash in
    between loses these leaves, never a rating."""
    for account, place in zip(ranking, places, strict=True):
        rating = after[account]
        leaf = leaves.Rating(account=account, game_id=game_id, mu=rating.mu, sigma=rating.sigma, place=place)
        enqueue(client, leaf)


def _rated(before: dict[str, Rating], ranking: list[str], places: list[int]) -> dict[str, Rating]:
    """``rate_table`` on accounts (it rates players numbered by their position in ``ranking``)."""
    by_position = {i: before[a] for i, a in enumerate(ranking)}
    rated = rate_table(by_position, list(range(len(ranking))), places)
    return {ranking[i]: rating for i, rating in rated.items()}


def _write(
    pipe: Any,
    game_id: str,
    game: str,
    ranking: list[str],
    places: list[int],
    before: dict[str, Rating],
    after: dict[str, Rating],
) -> None:
    now = int(time.time() * 1000)
    for account, place in zip(ranking, places, strict=True):
        new = after[account]
        change = RatingChange(
            game_id=game_id, place=place, players=len(ranking), before=before[account], after=new, ts_ms=now
        )
        pipe.hset(ratings_key(game), account, msgspec.json.encode(new))
        pipe.zadd(board_key(game), {account: new.ordinal})
        pipe.lpush(history_key(game, account), msgspec.json.encode(change))
        pipe.ltrim(history_key(game, account), 0, HISTORY_LIMIT - 1)
    pipe.sadd(rated_key(game), game_id)


class RatingTrigger:
    """The fold worker's hook: when a game with accounts ends, rate it (once; see ``rate_game``)."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        outcome = loaded.game.outcome(loaded.state)
        if outcome is None or (loaded.meta.tournament and cancelled(self.redis, game_id)):
            return  # a cancelled tournament's game ends by the clock's default moves: rated by nobody
        rate_game(self.redis, game_id, loaded.game.key, outcome)
