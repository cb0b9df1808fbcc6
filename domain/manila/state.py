"""The state of a Manila game: frozen msgspec Structs, tuples only, plus small read-only helpers."""

from __future__ import annotations

import msgspec

from domain.engine import Outcome
from domain.manila import data
from domain.seat_control import SeatControl
from domain.take_back import Window

RULES = 2
"""The rules version new games are decided under. 1: every game before issue 44. 2: issue 44, a player may
take back their moves of the turn (``domain/take_back.py``). A game keeps the version it started with
(``GameStarted.rules``, absent in version 1's streams)."""
HIDDEN_SHARE = ""
"""A share whose good this fold cannot know: a viewer folding redacted events (docs/design-brief.md "Hidden
information") learns that a share was dealt or pledged, not which good it is."""


class Player(msgspec.Struct, frozen=True, kw_only=True):
    """One merchant: cash, free shares and pledged (face-down) shares, goods in ``data.GOODS`` order
    (``HIDDEN_SHARE`` last, only in a fold of redacted events)."""

    cash: int
    shares: tuple[str, ...]
    mortgaged: tuple[str, ...] = ()


class Boat(msgspec.Struct, frozen=True, kw_only=True):
    """A loaded boat: its good, its field on the route, who sits on its seats (cheapest seat first)."""

    good: str
    position: int
    seats: tuple[int | None, ...]
    berth: str = ""
    """"" while at sea, else ``"harbour"`` or ``"shipyard"``."""
    berth_index: int = -1
    """0, 1, 2 for field A, B, C once berthed."""


class State(msgspec.Struct, frozen=True, kw_only=True):
    """Everything about a Manila game. ``office_net`` is what the harbour office has paid out, net."""

    seats: int
    variant_boarding: bool
    deal: str
    players: tuple[Player, ...]
    supply: tuple[int, ...]
    market: tuple[int, ...]
    """Black-market step per good (index into ``data.MARKET_TRACK``)."""
    office_net: int = 0
    voyage: int = 0
    phase: str = "setup"
    harbour_master: int | None = None
    # auction
    opener: int = 0
    bidder: int | None = None
    high_bid: int = 0
    high_bidder: int | None = None
    dropped: tuple[bool, ...] = ()
    # the voyage
    boats: tuple[Boat, ...] = ()
    step: int = 0
    placer: int | None = None
    placed_in_round: int = 0
    harbour: tuple[int | None, ...] = (None, None, None)
    shipyard: tuple[int | None, ...] = (None, None, None)
    pirates: tuple[int | None, ...] = (None, None)
    small_pilot: int | None = None
    big_pilot: int | None = None
    insurance: int | None = None
    rolls: int = 0
    pilot_turn: str = ""
    boarding_step: int = 0
    captain_boarded: bool = False
    just_boarded: tuple[str, int] | None = None
    plundered: tuple[str, ...] = ()
    sent_to_harbour: tuple[str, ...] = ()
    sent_to_shipyard: tuple[str, ...] = ()
    result: Outcome | None = None
    seat_control: SeatControl = SeatControl()
    """Who plays each seat (resigned, handed to a bot, voted out): ``domain/seat_control.py``."""
    rules: int = 1
    """The rules version the game is decided under (``RULES`` for new games; 1 for older streams)."""
    undo: Window[State] | None = None
    """The seat that may take back its moves now, and the state it would return to (``domain/take_back.py``)."""


def share_value(state: State, good: str) -> int:
    """The black-market value of one share of ``good`` now."""
    return data.MARKET_TRACK[state.market[data.GOODS.index(good)]]


def share_price(state: State, good: str) -> int:
    """What the harbour master pays for a share: its value, at least 5 (S0, Abb. 3)."""
    return max(data.MIN_SHARE_PRICE, share_value(state, good))


def means(player: Player) -> int:
    """Cash plus what pledging every free share would raise: the most a player can pay."""
    return player.cash + data.LOAN_AMOUNT * len(player.shares)


def is_stowaway(player: Player) -> bool:
    """No cash and no free share: a "blinder Passagier" (S0 p. 8)."""
    return player.cash == 0 and not player.shares


def boat_of(state: State, good: str) -> Boat | None:
    """The boat carrying ``good`` this voyage, if it was loaded."""
    for boat in state.boats:
        if boat.good == good:
            return boat
    return None


def free_seat(boat: Boat) -> int | None:
    """The cheapest free seat of a boat (seats fill cheapest first), or None when full."""
    for index, occupant in enumerate(boat.seats):
        if occupant is None:
            return index
    return None


def next_seat(state: State, seat: int) -> int:
    """The left neighbour: play goes clockwise."""
    return (seat + 1) % state.seats


def wealth(state: State, player: Player) -> int:
    """Final wealth: cash + free shares at market value − 15 per unpaid loan (S0 "Spielende")."""
    free = sum(share_value(state, good) for good in player.shares)
    return player.cash + free - data.LOAN_PENALTY * len(player.mortgaged)


def sort_goods(goods: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Goods in ``data.GOODS`` order, hidden ones last, so that equal hands encode equally."""
    return tuple(sorted(goods, key=_RANK.__getitem__))  # a C-level key: this sort runs on every turn


_RANK: dict[str, int] = {**{good: i for i, good in enumerate(data.GOODS)}, HIDDEN_SHARE: len(data.GOODS)}
