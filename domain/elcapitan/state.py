"""The state of an El Capitán game: frozen msgspec Structs of tuples, updated only by ``evolve``.

Colours: with 3–5 players colour ``s`` belongs to seat ``s``. With 2 players seat ``s`` has the main
colour ``s`` and the neutral colour ``2 + s`` (rulebook, "Sonderregeln zu zweit").
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.engine import Outcome
from domain.seat_control import SeatControl
from domain.take_back import Window

EMPTY = -1
"""An empty site, harbour space or fortress site."""
PIRATE = -2
"""The pirate ship on a harbour space (Islas Canarias expansion)."""
RULES = 5
"""The rules version new games are decided under (README, "Rules versions"). 1: the rules before issue 32
(pirate card sets named sorted, minimal, in any order; buying counted as a step still open before a pass;
the collector paid a player in debt; no free pirate move after a paid one). 2: issue 32's corrections.
3: issue 45, sailing is voluntary (a pass is refused only while an action or loan can be reached).
4: issue 43, a pirate move by cards plays the cards ``legal_commands`` offers for its target (the fewest
that reach it), no other choice. 5: issue 44, a player may take back their moves of the turn
(``domain/take_back.py``: the engine puts ``MovesBegan`` before a run's first move).
A game keeps the version it started with (``GameStarted.rules``, absent in version 1's streams)."""
HIDDEN_CARD = "?"
"""An undrawn card whose identity a viewer's redacted stream does not name (only the pile's size)."""


def colours(seats: int) -> int:
    """Number of warehouse colours in play: one per seat, or main + neutral per seat with 2 players."""
    return 4 if seats == 2 else seats


def owner(colour: int, seats: int) -> int:
    """The seat owning a colour (with 2 players the neutral colour 2 + s belongs to seat s)."""
    return colour % seats if seats == 2 else colour


Stage = Literal["turn", "loans", "choose_start", "over"]


class Loan(msgspec.Struct, frozen=True, kw_only=True):
    """A loan card in front of a player: 10 or 16 Florin, flipped once extended."""

    amount: int
    extended: bool = False
    settled: bool = False
    """Already repaid/extended (or newly taken) during the current after-payday settlement."""


class CityState(msgspec.Struct, frozen=True, kw_only=True):
    """A city tile: the warehouse chain, the city picture, the fortress sites and the harbour spaces."""

    name: str
    sites: tuple[int, ...]
    """Colour on each site 1..12 (index 0..11), or EMPTY."""
    frontier: int = 0
    """The highest site number ever built; 12 means the chain now grows backwards."""
    closed: tuple[int, ...] = ()
    """Colours of the shut-down warehouses standing on the city picture."""
    fortresses: tuple[int, ...] = ()
    """Seat on each fortress site, or EMPTY."""
    harbours: tuple[int, ...] = ()
    """Seat on each harbour space, EMPTY, or PIRATE."""


class PlayerState(msgspec.Struct, frozen=True, kw_only=True):
    """A merchant: money, supply in front of him, hand of sailing cards, loans, bonus card, ship."""

    money: int
    """Florin; the bank is unlimited and coins are not modelled (ambiguity 3)."""
    warehouses: int = 0
    neutral: int = 0
    fortresses: int = 0
    hand: tuple[str, ...] = ()
    loans: tuple[Loan, ...] = ()
    bonus: int = 0
    ship: str = ""
    """"" before the ship enters the game, "bank", or a city name."""
    harbour: int = EMPTY
    """Harbour space in ``ship``'s city, or EMPTY at the bank or while passing through a full city."""


class TurnState(msgspec.Struct, frozen=True, kw_only=True):
    """What the active player has already done this turn."""

    bought: bool = False
    sailed: bool = False
    acted: bool = False
    pirate_moved: bool = False
    pirate_due: bool = False
    """His ship arrived at Islas Canarias: the free pirate move with protection charge is owed."""
    pirate_freed: bool = False
    """Rules 2: the free pirate move was made this turn (it is owed once a turn, besides the paid one)."""


class Deck(msgspec.Struct, frozen=True, kw_only=True):
    """One kind of sailing card: hidden draw pile, open display, open discard pile."""

    draw: tuple[str, ...] = ()
    display: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()


class State(msgspec.Struct, frozen=True, kw_only=True):
    """The whole game."""

    seats: int
    expansions: tuple[str, ...]
    cities: tuple[CityState, ...]
    players: tuple[PlayerState, ...]
    destinations: Deck
    interconnections: Deck
    pool_warehouses: tuple[int, ...]
    """Per colour: warehouses still in the common pool (not yet handed out)."""
    pool_fortresses: tuple[int, ...]
    removed: tuple[int, ...]
    """Per colour: warehouses taken out of the game by Porto's shut-downs."""
    bonus_left: tuple[int, ...]
    pirate: str = ""
    """The pirate's city ("" without Islas Canarias)."""
    phase: int = 1
    round: int = 1
    start_player: int = 0
    current: int = 0
    stage: Stage = "turn"
    turn: TurnState = TurnState()
    phase_ending: bool = False
    built_this_round: bool = False
    busy_this_round: bool = False
    """Someone bought, sailed, moved the pirate or acted in a finished turn of this round (the safeguard,
    rules 2: a round in which nobody did anything, the loans being out, ends the phase)."""
    settlers: tuple[int, ...] = ()
    """Seats still to repay or extend loans after a payday, in turn order."""
    chooser: int = EMPTY
    result: Outcome | None = None
    rules: int = 1
    """The rules version the game is decided under (``RULES`` for new games; 1 for older streams)."""
    seat_control: SeatControl = SeatControl()
    """Who plays each seat (resigned, handed to a bot, voted out): ``domain/seat_control.py``."""
    undo: Window[State] | None = None
    """The seat that may take back its moves now, and the state it would return to (``domain/take_back.py``)."""

    def turn_order(self) -> tuple[int, ...]:
        """Seats in turn order, starting with the phase's start player."""
        return tuple((self.start_player + i) % self.seats for i in range(self.seats))

    def city_index(self, name: str) -> int:
        """Index of the city ``name`` in ``cities`` (KeyError-free: -1 when not in play)."""
        for i, city in enumerate(self.cities):
            if city.name == name:
                return i
        return -1
