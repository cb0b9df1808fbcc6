"""How a finished game moves its accounts' ratings (issue 44, findings 5 and 9): the pure rules, versioned.

``RULES_VERSION`` 2 (version 1 rated accounts only against each other, in the game's order, every game in
full). Under version 2:

- **Places are the whole table's.** Every seat is placed, bots and guests too; players level in score share
  the place where the rulebook leaves ties standing (``TIES_SHARED``: Manila, El Capitán, as a tournament's
  table does; a plugin game that names no tie-break too). "2nd= of 4" is a shared second place of four.
- **Abandoning is losing.** A seat whose last turn the clock played (it timed out and never came back: a
  table game's idle seat, a tournament's no-show or forfeit) is placed below every seat that stayed.
- **Bots are fixed-strength opponents.** A bot seat takes part in the update with a fixed rating by its name
  (``BOT_RATINGS``) that no game moves; losing to the greedy bot costs, beating it gains. Guests (a seat
  taken by a link, no account) count in the places only: nobody knows who they are.
- **Farming counts for little.** Accounts seen on a common address are not rated in a game they share (each
  of them); the k-th rated game of the same set of accounts within ``REPEAT_WINDOW_MS`` moves each rating
  by 1/k of the full update. A game is rated when two accounts remain.
- **One number.** ``shown`` is ``1500 + 40 (mu - 25)``: a new account is 1500, a win moves it up and a loss
  down (the ordinal, mu - 3 sigma, rose after a loss while sigma shrank: unreadable). It is *provisional*
  until ``PROVISIONAL_GAMES`` rated games; the leaderboard lists established accounts first.

Pure: no clock (the caller passes the game's end time), no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from domain.engine import Outcome
from domain.tournament.ratings import Rating, rate_table
from domain.tournament.results import TIES_SHARED, shared_places

RULES_VERSION = 2
PROVISIONAL_GAMES = 10
"""Rated games before an account's number is no longer marked provisional."""
REPEAT_WINDOW_MS = 24 * 3_600_000
SHOWN_BASE = 1500
SHOWN_PER_MU = 40
"""One point of mu is 40 shown points: a first game's swing is about 100, an established player's 10-20."""

BOT_RATINGS: Mapping[str, Rating] = {
    "random": Rating(mu=15.0, sigma=1.0),
    "greedy": Rating(mu=22.0, sigma=1.0),
    "strong-0.2": Rating(mu=25.0, sigma=1.0),
    "strong": Rating(mu=28.0, sigma=1.0),
    "strong-5": Rating(mu=31.0, sigma=1.0),
}
"""A bot's fixed strength by name: guesses ordered by the bots' levels (a small sigma, so that a game
against one is informative and it never moves). An unknown bot plays at ``DEFAULT_BOT``."""
DEFAULT_BOT = Rating(mu=25.0, sigma=1.0)


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    """Who held one seat of a finished game."""

    seat: int
    account: str | None = None
    bot: str | None = None
    abandoned: bool = False
    """The clock played this seat's last turn: it left the game."""


class Placed(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's place at its table (0 = first) after the abandoning seats were moved last."""

    seat: int
    place: int
    tied: bool
    """Another seat shares ``place``."""


class Change(msgspec.Struct, frozen=True, kw_only=True):
    """One account's rating change from one game."""

    account: str
    seat: int
    place: int
    tied: bool
    abandoned: bool
    weight: float
    before: Rating
    after: Rating


def shown(rating: Rating) -> int:
    """The one number a person reads (see the module's notes)."""
    return round(SHOWN_BASE + SHOWN_PER_MU * (rating.mu - Rating().mu))


def board_score(rating: Rating, games: int) -> float:
    """The leaderboard's order: established accounts by their number, then provisional ones by theirs."""
    return shown(rating) + (1_000_000 if games >= PROVISIONAL_GAMES else 0)


def placing(game: str, outcome: Outcome, seats: Sequence[Seat]) -> list[Placed]:
    """Every seat's place, best first: the game's ranking with abandoning seats moved below the others,
    ties shared where the game's rulebook shares them (the winners always share first)."""
    left = {s.seat for s in seats if s.abandoned}
    order = [s for s in outcome.ranking if s not in left] + [s for s in outcome.ranking if s in left]
    scores = [outcome.scores[s] for s in order]
    places = list(shared_places(scores, [s in left for s in order], ties_stand(game, outcome)))
    winners = set(outcome.winners) - left
    places = [0 if seat in winners else place for seat, place in zip(order, places, strict=True)]
    counts = {p: places.count(p) for p in places}
    return [Placed(seat=s, place=p, tied=counts[p] > 1) for s, p in zip(order, places, strict=True)]


def ties_stand(game: str, outcome: Outcome) -> bool:
    """Whether equal scores share a place: in the games whose rulebook says so, and in any game whose outcome
    names no tie-break (``Outcome.tie_break`` is empty "when there was none": the order among equals is then
    only the seat order). East India Companies names the tie-break it applied: its order stands."""
    return game in TIES_SHARED or not outcome.tie_break


def same_address(addresses: Mapping[str, frozenset[str]]) -> set[str]:
    """The accounts that share an address with another account of the table (each of them)."""
    found: set[str] = set()
    accounts = sorted(addresses)
    for i, a in enumerate(accounts):
        for b in accounts[i + 1 :]:
            if addresses[a] & addresses[b]:
                found |= {a, b}
    return found


def repeat_weight(earlier_ms: Sequence[int], now_ms: int) -> float:
    """1/k for the k-th rated game of the same set of accounts within the window (``earlier_ms``: when the
    earlier ones ended)."""
    k = 1 + sum(1 for t in earlier_ms if now_ms - REPEAT_WINDOW_MS < t <= now_ms)
    return 1.0 / k


def pairing(accounts: Sequence[str]) -> str:
    """The set of accounts as one key (order-free)."""
    return ",".join(sorted(set(accounts)))


def eligible(seats: Sequence[Seat], shared: set[str]) -> list[str]:
    """The accounts this game rates: seated once, not sharing an address with another at the table."""
    accounts = [s.account for s in seats if s.account is not None]
    return [a for a in accounts if accounts.count(a) == 1 and a not in shared]


def rate(
    game: str,
    outcome: Outcome,
    seats: Sequence[Seat],
    before: Mapping[str, Rating],
    rated: Sequence[str],
    weight: float,
) -> list[Change]:
    """The changes of the ``rated`` accounts: one Plackett-Luce update over them and the bots, ranked by
    their places at the whole table, each move scaled by ``weight``. Empty if fewer than two accounts."""
    if len(rated) < 2:
        return []
    by_seat = {s.seat: s for s in seats}
    placed = [p for p in placing(game, outcome, seats) if _takes_part(by_seat[p.seat], rated)]
    ratings = {p.seat: _rating_of(by_seat[p.seat], before) for p in placed}
    full = rate_table(ratings, [p.seat for p in placed], [p.place for p in placed])
    changes = []
    for p in placed:
        account = by_seat[p.seat].account
        if account is None:
            continue  # a bot: fixed
        old = ratings[p.seat]
        changes.append(
            Change(
                account=account,
                seat=p.seat,
                place=p.place,
                tied=p.tied,
                abandoned=by_seat[p.seat].abandoned,
                weight=weight,
                before=old,
                after=scaled(old, full[p.seat], weight),
            )
        )
    return changes


def scaled(before: Rating, full: Rating, weight: float) -> Rating:
    """The part ``weight`` of the way from ``before`` to the full update (sigma too: a repeated game
    teaches less)."""
    return Rating(
        mu=before.mu + weight * (full.mu - before.mu),
        sigma=before.sigma + weight * (full.sigma - before.sigma),
    )


def _takes_part(seat: Seat, rated: Sequence[str]) -> bool:
    return seat.account in rated if seat.account is not None else seat.bot is not None


def _rating_of(seat: Seat, before: Mapping[str, Rating]) -> Rating:
    if seat.account is not None:
        return before.get(seat.account, Rating())
    return BOT_RATINGS.get(seat.bot or "", DEFAULT_BOT)


def rate_v1(outcome: Outcome, seats: Sequence[Seat], before: Mapping[str, Rating]) -> list[Change]:
    """Rules version 1 (before issue 44), kept so that its ratings re-verify under their own rule: accounts
    only, in the game's ranking, winners sharing first, the rest in order; every game in full."""
    accounts = {s.seat: s.account for s in seats if s.account is not None}
    ranked = [seat for seat in outcome.ranking if seat in accounts]
    places = [0 if seat in outcome.winners else i for i, seat in enumerate(ranked)]
    names = [accounts[seat] for seat in ranked]
    if len(names) < 2 or len(set(names)) != len(names):
        return []
    ratings = {seat: before.get(accounts[seat], Rating()) for seat in ranked}
    after = rate_table(ratings, ranked, places)
    return [
        Change(
            account=accounts[seat],
            seat=seat,
            place=place,
            tied=places.count(place) > 1,
            abandoned=False,
            weight=1.0,
            before=ratings[seat],
            after=after[seat],
        )
        for seat, place in zip(ranked, places, strict=True)
    ]


def recompute(
    version: int,
    game: str,
    outcome: Outcome,
    seats: Sequence[Seat],
    before: Mapping[str, Rating],
    rated: Sequence[str],
    weight: float,
) -> list[Change]:
    """A logged rating's changes again under the rules ``version`` it names (``rated`` and ``weight``, which
    depend on addresses and earlier games an auditor cannot see, are taken as the leaves give them)."""
    if version == 1:
        return rate_v1(outcome, seats, before)
    if version == RULES_VERSION:
        return rate(game, outcome, seats, before, rated, weight)
    raise ValueError(f"unknown account ratings rules version {version}")
