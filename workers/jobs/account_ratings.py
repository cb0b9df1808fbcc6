"""Ratings that follow an account across games: one OpenSkill rating per account and game, moved by every
rated game its account sat in, with a history.

Which account holds which seat is written when a table's game is made (``services/players/tables.py``),
or a tournament's round game whose entrants are tied to accounts (``queue_tournament_accounts``):
``hm:{g:<id>}:accounts`` maps ``s:<seat>`` to an account and ``a:<account>`` back to its seat, with
``rated`` set for a rated game. When such a game ends, the fold worker's hook (``RatingTrigger``) rates its
table once: the update and the mark that it was made are one transaction under ``WATCH``, on keys of one
hash tag per game kind (``hm:{r:<game>}:…``, one Cluster slot), so a second trigger (a retry, a duplicate
command's hook, another worker) changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import redis
import structlog

from domain.engine import Outcome
from domain.players import rating_rules as rules
from domain.tournament.ratings import Rating
from events import keys
from events.log_store import enqueue
from events.store import LoadedGame
from events.tlog import leaves
from events.tournament_store import tournament_key
from workers.jobs.clock_due import cancelled
from workers.jobs.rating_inputs import abandoned_and_end, addresses_of, seats_of

log = structlog.get_logger("ratings")

HISTORY_LIMIT = 1_000
"""Entries of an account's rating history kept per game kind."""


class RatingChange(msgspec.Struct, frozen=True, kw_only=True):
    """One rated game in an account's history (fields after ``ts_ms``: rules version 2; a version 1 entry
    reads with their defaults)."""

    game_id: str
    place: int
    """0 for first; players sharing a place were rated as a tie. Version 2: the place at the whole table."""
    players: int
    before: Rating
    after: Rating
    ts_ms: int
    tied: bool = False
    abandoned: bool = False
    """The clock played this account's last turn: placed last."""
    weight: float = 1.0
    """The part of the full update it made (1/k for the k-th game of the same accounts within 24 h)."""
    games: int = 0
    """Rated games of this kind the account had played with this one (0: unknown, version 1)."""
    rules: int = 1


def seat_accounts_key(game_id: str) -> str:
    return keys.game_key(game_id, "accounts")


def account_games_key(account: str) -> str:
    """The games an account sits in (a sorted set by creation time)."""
    return keys.account_part(account, "games")


def tournament_accounts_key(tournament_id: str) -> str:
    """A tournament's entrants tied to accounts (entrant index -> account), claimed with the person's key
    (``services/gateway/api/tournament_accounts.py``)."""
    return tournament_key(tournament_id, "accounts")


def seat_account(client: Any, game_id: str, seat: int, account: str) -> None:
    """Tie one seat of a game to an account (rated), and list the game among the account's."""
    pipe = client.pipeline(transaction=False)
    queue_seat_account(pipe, game_id, seat, account)
    pipe.execute()


def queue_seat_account(pipe: Any, game_id: str, seat: int, account: str) -> None:
    """``seat_account`` queued on a pipeline."""
    pipe.hset(seat_accounts_key(game_id), mapping={f"s:{seat}": account, f"a:{account}": seat, "rated": 1})
    pipe.zadd(account_games_key(account), {game_id: int(time.time() * 1000)}, nx=True)


def tournament_accounts(client: Any, tournament_id: str) -> dict[int, str]:
    """The tournament's entrants tied to accounts (entrant index -> account): read once for a whole round."""
    return {int(k): v.decode() for k, v in client.hgetall(tournament_accounts_key(tournament_id)).items()}


def queue_tournament_accounts(
    pipe: Any, claimed: dict[int, str], game_id: str, players: Sequence[int]
) -> None:
    """When a round's game is made: its seats whose entrants are tied to accounts (idempotent), queued on a
    pipeline, from the accounts read once for the round (``tournament_accounts``)."""
    for seat, player in enumerate(players):
        if player in claimed:
            queue_seat_account(pipe, game_id, seat, claimed[player])


def ratings_key(game: str) -> str:
    return keys.ratings_key(game, "ratings")


def board_key(game: str) -> str:
    """The leaderboard: accounts by ``rating_rules.board_score`` (rules version 1 wrote the ordinal,
    mu - 3 sigma, which sorts below every version 2 score until the account's next game)."""
    return keys.ratings_key(game, "board")


def rated_key(game: str) -> str:
    return keys.ratings_key(game, "rated")


def history_key(game: str, account: str) -> str:
    return keys.ratings_key(game, f"history:{account}")


def pairs_key(game: str, pairing: str) -> str:
    """When the rated games of one set of accounts ended, within the repeat window (game id -> ms)."""
    return keys.ratings_key(game, f"pairs:{pairing}")


def unrated_key(game: str) -> str:
    """Rated games that rated nobody: game id -> why (``TOO_FEW``, ``SHARED_ADDRESS``)."""
    return keys.ratings_key(game, "unrated")


TOO_FEW = "fewer than two accounts at the table"
SHARED_ADDRESS = "accounts seen on one address are not rated against each other"


def game_changes_key(game: str, game_id: str) -> str:
    """One rated game's changes (account -> ``RatingChange``): what its end screen shows."""
    return keys.ratings_key(game, f"game:{game_id}")


def games_played(client: Any, game: str, accounts: list[str]) -> dict[str, int]:
    """Rated games each account has played of this kind (its history's length, capped at ``HISTORY_LIMIT``)."""
    pipe = client.pipeline(transaction=False)
    for account in accounts:
        pipe.llen(history_key(game, account))
    return dict(zip(accounts, pipe.execute(), strict=True))


def decode_rating(raw: bytes | None) -> Rating:
    """A stored rating; a record that is not one reads as a new account's (logged), never an error that would
    stop every later game of the account from being rated or its page from showing."""
    if not raw:
        return Rating()
    try:
        return msgspec.json.decode(raw, type=Rating)
    except (msgspec.DecodeError, msgspec.ValidationError):
        log.warning("rating_unreadable", raw=raw[:80])
        return Rating()


def rate_game(
    client: Any,
    game_id: str,
    game: str,
    outcome: Outcome,
    bots: Mapping[str, str] | None = None,
    before_write: Callable[[], None] | None = None,
) -> bool:
    """Rate a finished game's accounts once (``domain/players/rating_rules``); True if this call did it. Not
    rated: not a rated game, or fewer than two accounts left to rate (see ``rating_rules.eligible``).
    ``before_write`` (tests) runs between the watched reads and the write, where another writer may come in."""
    seat_accounts = {k.decode(): v.decode() for k, v in client.hgetall(seat_accounts_key(game_id)).items()}
    if seat_accounts.get("rated") != "1":
        return False
    left, ended_ms = abandoned_and_end(client, game_id)
    seats = seats_of(seat_accounts, bots or {}, len(outcome.scores), left)
    accounts = [s.account for s in seats if s.account is not None]
    shared = rules.same_address(addresses_of(client, accounts))
    rated = rules.eligible(seats, shared)
    if len(rated) < 2:
        reason = SHARED_ADDRESS if shared else TOO_FEW
        client.hset(unrated_key(game), game_id, reason)  # the end screen says why (and it is said once)
        return False
    pairs = pairs_key(game, rules.pairing(rated))
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(rated_key(game), ratings_key(game), pairs)
                if pipe.sismember(rated_key(game), game_id):
                    return False
                raw = pipe.hmget(ratings_key(game), rated)
                before = {a: decode_rating(r) for a, r in zip(rated, raw, strict=True)}
                earlier = [int(t) for _, t in pipe.zrange(pairs, 0, -1, withscores=True)]
                weight = rules.repeat_weight(earlier, ended_ms)
                changes = rules.rate(game, outcome, seats, before, rated, weight)
                games = {a: int(pipe.llen(history_key(game, a))) for a in rated}
                if before_write is not None:
                    before_write()
                pipe.multi()
                _write(pipe, game_id, game, changes, len(seats), games, ended_ms)
                pipe.zadd(pairs, {game_id: ended_ms})
                pipe.zremrangebyscore(pairs, "-inf", ended_ms - rules.REPEAT_WINDOW_MS)
                pipe.execute()
                break
            except redis.WatchError:
                continue
    log.info("game_rated", game_id=game_id, game=game, accounts=rated, weight=weight)
    _log_ratings(client, game_id, changes)
    return True


def _log_ratings(client: Any, game_id: str, changes: list[rules.Change]) -> None:
    """Ask the service's log to hold each account's new rating (``workers/log_sequencer.py`` appends them). Its
    queue is in another Cluster slot than the ratings, so it is written after their transaction: a crash in
    between loses these leaves, never a rating."""
    for change in changes:
        leaf = leaves.Rating(account=change.account, game_id=game_id, mu=change.after.mu,
                             sigma=change.after.sigma, place=change.place, rules=rules.RULES_VERSION,
                             weight=change.weight, seat=change.seat)  # fmt: skip
        enqueue(client, leaf)


def _write(
    pipe: Any,
    game_id: str,
    game: str,
    changes: list[rules.Change],
    players: int,
    games: dict[str, int],
    ended_ms: int,
) -> None:
    """The new ratings, the board, each account's history and the game's own list of changes (the end screen's)."""
    now = ended_ms or int(time.time() * 1000)
    for c in changes:
        played = games[c.account] + 1
        change = RatingChange(
            game_id=game_id, place=c.place, players=players, before=c.before, after=c.after, ts_ms=now,
            tied=c.tied, abandoned=c.abandoned, weight=c.weight, games=played, rules=rules.RULES_VERSION,
        )  # fmt: skip
        encoded = msgspec.json.encode(change)
        pipe.hset(ratings_key(game), c.account, msgspec.json.encode(c.after))
        pipe.zadd(board_key(game), {c.account: rules.board_score(c.after, played)})
        pipe.lpush(history_key(game, c.account), encoded)
        pipe.ltrim(history_key(game, c.account), 0, HISTORY_LIMIT - 1)
        pipe.hset(game_changes_key(game, game_id), c.account, encoded)
    pipe.sadd(rated_key(game), game_id)


class RatingTrigger:
    """The fold worker's hook: when a game with accounts ends, rate it (once; see ``rate_game``)."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        outcome = loaded.game.outcome(loaded.state)
        if outcome is None or (loaded.meta.tournament and cancelled(self.redis, game_id)):
            return  # a cancelled tournament's game ends by the clock's default moves: rated by nobody
        rate_game(self.redis, game_id, loaded.game.key, outcome, loaded.meta.bots)
