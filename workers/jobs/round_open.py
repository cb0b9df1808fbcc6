"""Opening a tournament round: its games created with their bots, the people's seat tokens, the accounts'
seats and the entrants' names on the seats, and the bots set going.

What is the same for every table (the people's key digests, the entrants tied to accounts) is read once
for the round, and every table's seats are written in pipelines of ``SEAT_BATCH`` tables, before the games
are created (a person's key opens the seat from the moment its game exists). The games are then created
256 a pipeline (``events/create_batch.py``: each game's set-up computed as the event store's ``create``
does, the writes batched; one by one on a Cluster), and the bots of the tables that need a bot turn
enqueued 8 at a time (``fan_out``). A round of 2,500 tables read the same two hashes 5,000 times before
(issue 46, item 4) and took three round trips a game to create (issue 42).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from domain.tournament import RoundPaired, State
from events import keys, seat_names
from events.create_batch import NewGame, create_many, loaded_new
from events.store import EventStore
from events.tournament_store import tournament_key
from workers.botrunner import runners_alive
from workers.jobs.account_ratings import queue_tournament_accounts, tournament_accounts
from workers.jobs.bots import searches
from workers.jobs.fan_out import each
from workers.jobs.people import people_digests, queue_seat_people
from workers.jobs.schedule import make_scheduler

SEAT_BATCH = 256
"""Tables whose seats one pipeline writes."""


def tables_key(tournament_id: str) -> str:
    """A hash: ``r<round>`` -> how many tables the round has (the fold worker's hook counts ended games
    against it)."""
    return tournament_key(tournament_id, "tables")


def game_statuses(store: EventStore, game_ids: Sequence[str]) -> dict[str, bytes | None]:
    """Each game's status from its meta hash (``live``, ``finished``; ``None``: not created), in one trip."""
    pipe = store.redis.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hget(keys.meta(game_id), "status")
    return dict(zip(game_ids, pipe.execute(), strict=True))


def open_round(
    store: EventStore,
    rq: Any,
    state: State,
    paired: RoundPaired,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...],
) -> None:
    """Create the round's games (each with a fresh secret seed; an existing one is left alone) with the
    entrants' bots in their seats, their names on the seats and the people's keys as their seats' tokens,
    and set the bots going (their turns on ``rq``, the rq queues' Redis, unless a bot runner is live)."""
    scheduler = make_scheduler(rq, redis_url, 0.0, partitions, plugins)
    runners = runners_alive(store.redis)  # a live bot runner finds the new games on its own
    store.redis.hset(tables_key(state.tournament_id), f"r{paired.round}", len(paired.tables))
    statuses = game_statuses(store, paired.games)
    seat_round(store.redis, state, paired)
    game = store.games[state.settings.game]
    tables = list(zip(paired.tables, paired.games, strict=True))
    bots = {game_id: _bots(state, players) for players, game_id in tables}
    # Not created yet (or lost in a crash before it was); one that exists meanwhile is left alone.
    new = [NewGame(game_id=g, seats=len(players), seed=secrets.token_bytes(32), bots=bots[g])
           for players, g in tables if statuses.get(g) is None]  # fmt: skip
    created = create_many(store, state.settings.game, state.settings.options, new, tournament=True)

    def start_bots(game_id: str) -> None:
        made = created.get(game_id)
        scheduler.ensure(
            game_id, loaded_new(store, made) if made else store.load(game_id), only_searching=runners
        )

    # A live runner plays all but the search bots' turns: a table with none has nothing to enqueue.
    due = [g for _, g in tables if statuses.get(g) != b"finished"
           and (not runners or any(searches(game, bot) for bot in bots[g].values()))]  # fmt: skip
    # 8 at a time: their first moves reach the fold worker as a burst of cold loads, which it now folds
    # keeping its leases (renewed within a step) and its cache (issue 42).
    each(start_bots, due)


def _bots(state: State, players: Sequence[int]) -> dict[int, str]:
    """A table's bot seats: seat -> the entrant's bot."""
    return {seat: bot for seat, p in enumerate(players) if (bot := state.entrants[p].bot)}


def seat_round(client: Any, state: State, paired: RoundPaired) -> None:
    """Every table's seats: the people's tokens, the accounts' seats (rated) and the names (idempotent:
    a round reopened writes the same)."""
    digests = people_digests(client, state.tournament_id)
    claimed = tournament_accounts(client, state.tournament_id)
    tables = list(zip(paired.tables, paired.games, strict=True))
    for start in range(0, len(tables), SEAT_BATCH):
        pipe = client.pipeline(transaction=False)
        for players, game_id in tables[start : start + SEAT_BATCH]:
            queue_seat_people(pipe, digests, game_id, players)
            queue_tournament_accounts(pipe, claimed, game_id, players)  # rated for accounts
            seat_names.queue_write(pipe, game_id, [state.entrants[p].name for p in players])
        pipe.execute()


def name_seats(client: Any, game_id: str, names: Sequence[str]) -> None:
    """The entrants' names on their seats, where the gateway keeps a game's names, by the one writer of
    that field (``events/seat_names.py``: cut to the printable characters a name may have there)."""
    seat_names.queue_write(client, game_id, names)
