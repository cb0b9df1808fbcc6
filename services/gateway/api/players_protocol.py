"""The wire Structs of accounts, tables, chat and ratings (HTTP bodies and the ``chat`` WebSocket frame);
``openapi.py`` documents them, as it does ``protocol.py``'s."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.tournament.ratings import Rating
from workers.jobs.table_clocks import ClockChoice

BotName = Literal["random", "greedy", "strong-0.2", "strong", "strong-5"]
"""The server's bots (``workers.jobs.bots.bot_names``): ``strong`` searches 1 s a move, its levels 0.2 s and
5 s (``STRONG_SECONDS``). Another name is refused (422) before anything is written."""


class Credentials(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/accounts`` (sign up) and ``POST /api/session`` (sign in). Sent over https in production:
    the password is hashed with Argon2id on arrival and never stored or logged."""

    name: str
    password: str


class Me(msgspec.Struct, kw_only=True):
    """The signed-in account (the session cookie ``hm_session`` says who); ``null`` when none."""

    name: str | None


class OpenTable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/tables``: a table of ``game`` with ``seats`` seats; its creator sits in seat 0."""

    game: str
    seats: int
    options: dict[str, Any] = {}
    rated: bool = True
    """Whether the game moves its players' ratings (its accounts are rated against each other)."""
    bots: list[BotName] = []
    """Server bots in the last seats (``seats`` counts them); the other seats are for accounts."""
    clock: ClockChoice | None = None
    """Its game's clock: a preset (``{"preset": "rapid"}``) or custom values (``{"kind": "turn", "hours": 48}``),
    and what a seat out of time becomes (``on_timeout``: ``bot``, ``drop`` or ``vote``); none: the idle limit alone
    (``workers/jobs/table_clocks.py``)."""
    private: bool = False
    """Left out of the lobby's list: only those given its invite link (``/?table=<id>``) find it."""


class TableInfo(msgspec.Struct, kw_only=True):
    table_id: str
    game: str
    title: str
    seats: int
    options: dict[str, Any]
    rated: bool
    creator: str
    seated: list[str]
    """Names of the accounts seated, by seat."""
    bots: list[str]
    """The bots of the last seats."""
    free: int
    status: str
    """``open``, ``starting`` or ``started`` (then ``game_id`` is its game)."""
    game_id: str | None = None
    clock: str = "no clock"
    """Its clock as the lobby shows it (``10 min + 10 s/move``, ``1 day/move``)."""
    on_timeout: str = "bot"
    """What a seat out of time becomes: ``bot`` (a stand-in plays it until its player moves) or ``drop``."""
    private: bool = False
    """Not listed in the lobby; its invite link (``/?table=<id>``) reaches it."""


class Resigned(msgspec.Struct, frozen=True, kw_only=True):
    """``POST /api/games/{id}/resign``: the seat resigned; ``first``: whether this request resigned it."""

    game_id: str
    seat: int
    resigned: bool
    first: bool


class TableList(msgspec.Struct, kw_only=True):
    tables: list[TableInfo]


class MyGame(msgspec.Struct, kw_only=True):
    """A game the account sits in: its seat, and whose turn it is (``to_act``, seats)."""

    game_id: str
    game: str
    title: str
    seat: int
    names: list[str]
    status: str
    to_act: list[int]
    your_turn: bool
    created_ms: int = 0
    """When the account sat down in it (ms since the epoch): *My games* shows its date."""
    winners: list[int] = []
    """A finished game's winning seats (empty while live, or not read yet: ``api/game_winners.py``)."""


class MyGames(msgspec.Struct, kw_only=True):
    games: list[MyGame]


class ChatPost(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/games/{id}/chat``: a message to the players' channel (a seat's) or the spectators'."""

    text: str
    channel: Literal["players", "spectators"] = "players"


class ChatFrame(msgspec.Struct, kw_only=True, tag="chat", tag_field="type"):
    """A chat message, pushed on the game's WebSockets to those it may reach (and listed by ``GET …/chat``).
    ``seat`` is the author's seat in the players' channel, else null."""

    id: str
    channel: str
    author: str
    seat: int | None
    text: str
    ts_ms: int


class ChatLog(msgspec.Struct, kw_only=True):
    messages: list[ChatFrame]


class Muted(msgspec.Struct, kw_only=True):
    """``GET /api/me/muted``: the chat authors the signed-in account has muted (its page hides their lines)."""

    muted: list[str]


class RatingRow(msgspec.Struct, kw_only=True):
    rank: int
    name: str
    rating: int
    """The one number shown: ``1500 + 40 (mu - 25)`` (``domain/players/rating_rules.shown``)."""
    provisional: bool
    """Fewer than ``PROVISIONAL_GAMES`` rated games: listed after every established account."""
    games: int
    mu: float
    sigma: float
    ordinal: float
    """mu - 3 sigma: OpenSkill's conservative estimate (the details behind a click)."""


class Leaderboard(msgspec.Struct, kw_only=True):
    game: str
    title: str
    rows: list[RatingRow]
    provisional_games: int
    """Rated games after which an account's number is no longer provisional."""


class RatedGame(msgspec.Struct, kw_only=True):
    """One rated game of an account: its place at the whole table and its number before and after."""

    game_id: str
    account: str
    """The account's name as shown."""
    place: int
    """0 for first, at the whole table (bots and guests counted); ``tied``: shared with another seat."""
    players: int
    tied: bool
    abandoned: bool
    """The clock played its last turn: placed last."""
    weight: float
    """The part of a full update it made (1/k for the k-th game of the same accounts within 24 h)."""
    before: int
    after: int
    change: int
    provisional: bool
    """Still provisional after this game."""
    rules: int
    """The ratings' rules version it was rated under (1: before issue 44)."""
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    ts_ms: int


class GameRating(msgspec.Struct, kw_only=True):
    game: str
    rating: Rating
    shown: int
    provisional: bool
    games: int
    ordinal: float
    history: list[RatedGame]
    """Newest first: each rated game with the place taken and the number before and after."""


class GameRatings(msgspec.Struct, kw_only=True):
    """``GET /api/games/{game_id}/ratings``: what a finished game did to its accounts' ratings (its end
    screen); ``status`` ``rated``, ``pending`` (the game is live, or its rating is on its way) or
    ``unrated`` (not a rated game, or fewer than two accounts could be rated: see ``reason``)."""

    game_id: str
    status: str
    reason: str = ""
    changes: list[RatedGame] = []


class AccountPage(msgspec.Struct, kw_only=True):
    name: str
    created_ms: int
    ratings: list[GameRating]
    games: list[MyGame]
