"""The state of a game of East India Companies: frozen msgspec Structs, tuples only.

Companies are indexed like players: seats ``0 … seats-1``; in the 2-player game the neutral player is
company/player ``2`` (rulebook, "Das 2-Personen-Spiel"), which never appears in ``to_act``.
"""

from __future__ import annotations

import msgspec

from domain.seat_control import SeatControl
from domain.take_back import Window

RULES = 3
"""The rules version new games are decided under (README, "Rules versions"). 1: the rules before issue 32,
whose epoch 5 closed the gaps the Galleons left in a harbour. 2: docks are places (``Player.free_docks``).
3: issue 44, a player may take back their moves of the turn (``domain/take_back.py``).
A game keeps the version it started with (``GameSetUp.rules``, absent in version 1's streams)."""

Goods = tuple[int, int, int, int]
"""Counts per good, in the order tea, spices, coffee, silk."""

NO_GOODS: Goods = (0, 0, 0, 0)


class Ship(msgspec.Struct, frozen=True, kw_only=True):
    """One ship tile of a player: ``zone`` 0 is the harbour, 1–3 a zone of the Far East."""

    id: str
    kind: str
    cargo: Goods = NO_GOODS
    zone: int = 0
    face_down: bool = False
    gained: int = 0
    """The epoch in which the ship was gained (0: a start Galleon); the neutral discards its oldest."""


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """One company: its treasury, income tableau, harbour, envoys, posts and share holdings."""

    treasury: int
    income: int = 0
    income_marker: int = 0
    ships: tuple[Ship, ...] = ()
    used_tiles: tuple[str, ...] = ()
    """Ship kinds taken from the personal supply (bought, discarded or start Galleons)."""
    extensions: int = 0
    warehouse: Goods = NO_GOODS
    posts: tuple[str, ...] = ()
    envoys: tuple[str, ...] = ("any", "any", "any")
    """Per envoy: ``any`` (free choice), ``P:<personality>`` (portrait), ``C:<origin>`` (central zone),
    ``S:<space>`` (placed this epoch) or ``R:<origin>`` (recalled: no legal space was left)."""
    shares: tuple[int, ...] = ()
    """Ordinary shares held, per company."""
    pledged: int = 0
    free_docks: tuple[int, ...] = ()
    """Rules 2: docks (0 = leftmost) left free between ships at home, in ascending order. Docks are
    places: when the Galleons leave at the start of epoch 5 the other ships stay where they are
    (``drop_galleons``), and a new ship takes the first free dock. Emptied when the ships sail in phase C;
    otherwise the ships at home fill the docks from the left."""


class State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole game."""

    seats: int
    pledging: bool
    players: tuple[Player, ...]
    stock: tuple[int, ...]
    """Stock-track space index per company (0 = the first space, value 4)."""
    exchange: tuple[int, ...]
    """Shares of each company still on the exchange."""
    initiative: tuple[int, ...]
    supply: Goods
    far_east: Goods
    europe: Goods
    epoch: int = 0
    phase: str = "setup"
    """``A``, ``B``, ``C``, ``D``, ``E`` (warehouse sales), ``U`` (phase E, unloading), ``F``, ``epoch_over``, ``over``."""
    actor: int = -1
    step: str = ""
    cursor: int = -1
    passes: int = 0
    fe_dice: Goods = NO_GOODS
    eu_dice: Goods = NO_GOODS
    occupants: tuple[tuple[int, ...], ...] = ()
    """Per ability space (data.SPACE_IDS order), the players whose envoys stand there, in placement order."""
    neutral_done: bool = False
    fe_card: str | None = None
    eu_card: str | None = None
    cards_drawn: bool = False
    fe_revealed: bool = False
    eu_revealed: bool = False
    used_cards: tuple[str, ...] = ()
    used_neutral_envoy_cards: tuple[str, ...] = ()
    destinations_drawn: tuple[str, ...] = ()
    zones: tuple[tuple[str, ...], ...] = ((), (), ())
    """Ship ids sent face down into zones I–III this epoch, bottom of the stack first."""
    left: tuple[tuple[str, ...], ...] = ((), (), ())
    """Ship ids left face up in zones I–III, in the order they were left (first on top)."""
    zone: int = 0
    queue: tuple[str, ...] = ()
    unload_speed: int = 0
    ranking: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    tie_break: str = ""
    rules: int = 1
    """The rules version the game is decided under (``RULES`` for new games; 1 for older streams)."""
    seat_control: SeatControl = SeatControl()
    """Who plays each seat (resigned, handed to a bot, voted out): ``domain/seat_control.py``."""
    undo: Window[State] | None = None
    """The seat that may take back its moves now, and the state it would return to (``domain/take_back.py``)."""

    @property
    def companies(self) -> int:
        """Number of companies in play (3 in the 2-player game: the neutral one)."""
        return len(self.players)

    @property
    def neutral(self) -> int:
        """The neutral player's index, or -1 when there is none."""
        return 2 if self.seats == 2 else -1
