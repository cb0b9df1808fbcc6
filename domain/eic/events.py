"""What happened (rulebook order: set-up, phases A–F, final scoring). Chance outcomes are fields."""

from __future__ import annotations

import msgspec

from domain.eic.state import Goods
from domain.engine import Event


class GameSetUp(Event, frozen=True, kw_only=True, omit_defaults=True):
    """Set-up: seats, options and the random initiative order (start money follows from it).

    ``rules`` is the rules version the game is decided under (``state.RULES``). Version 1 is left out of
    the encoding, so the streams recorded before versions existed keep their bytes and read as version 1.
    """

    seats: int
    options: dict[str, bool]
    initiative: tuple[int, ...]
    rules: int = 1


class EpochBegan(Event, frozen=True, kw_only=True):
    """An epoch starts; the first player's market forecast dice (Far East, then Europe)."""

    epoch: int
    fe_dice: Goods
    eu_dice: Goods


class TurnBegan(Event, frozen=True, kw_only=True):
    """``player`` must now act in ``step``."""

    player: int
    step: str


class EnvoyPlaced(Event, frozen=True, kw_only=True):
    """Phase A: an envoy placed; fees paid to ``paid`` (1 each; the neutral's share goes to the supply)."""

    player: int
    envoy: int
    space: str
    paid: tuple[int, ...] = ()
    cost: int = 0
    ship: str = ""
    discard: str = ""
    site: str = ""


class EnvoyRecalled(Event, frozen=True, kw_only=True):
    """Phase A: an envoy with no legal space left stays out this epoch."""

    player: int
    envoy: int


class NeutralEnvoysPlaced(Event, frozen=True, kw_only=True):
    """2 players, phase A: the neutral drew an envoy card and applied its effects."""

    card: str
    spaces: tuple[str, ...]
    rewarded: tuple[int, ...]
    ship: str = ""
    discard: str = ""
    extension: bool = False
    site: str = ""


class PhaseBegan(Event, frozen=True, kw_only=True):
    """A new phase (``U`` is phase E's unloading)."""

    phase: str


class InitiativeChanged(Event, frozen=True, kw_only=True):
    """Phase B start (Expertise) or phase F: the new initiative order."""

    initiative: tuple[int, ...]


class SharesSold(Event, frozen=True, kw_only=True):
    """Shares sold at the current value; the marker then falls one space per share."""

    player: int
    company: int
    count: int
    price: int


class StartSharePledged(Event, frozen=True, kw_only=True):
    """Pledging rule: a start share pledged for ``amount``."""

    player: int
    amount: int


class StartShareRedeemed(Event, frozen=True, kw_only=True):
    """Pledging rule: a pledged start share bought back for ``price``."""

    player: int
    price: int


class ShareBought(Event, frozen=True, kw_only=True):
    """Phase B: one share bought; its marker rises one space."""

    player: int
    company: int
    price: int


class Passed(Event, frozen=True, kw_only=True):
    """Phase B: a player passed."""

    player: int


class MarketCardChosen(Event, frozen=True, kw_only=True):
    """Phase C, Influence: the first envoy's owner chose ``card`` (None when redacted)."""

    market: str
    player: int
    card: str | None
    viewers: tuple[int, ...]


class MarketCardsDrawn(Event, frozen=True, kw_only=True):
    """Phase C: cards drawn face down at random (None when not drawn or redacted)."""

    fe_card: str | None
    eu_card: str | None
    fe_viewers: tuple[int, ...] = ()
    eu_viewers: tuple[int, ...] = ()


class ShipSent(Event, frozen=True, kw_only=True):
    """Phase C: a ship placed face down in a zone (``ship`` None when redacted).

    ``destination`` is the neutral's destination card (2 players), empty for a seated player's send.
    """

    player: int
    ship: str | None
    zone: int
    cost: int
    destination: str = ""


class FarEastSupplied(Event, frozen=True, kw_only=True):
    """Phase D: the Far East card revealed; ``added`` cubes placed from the dearest space down."""

    card: str
    added: Goods


class ShipsRevealed(Event, frozen=True, kw_only=True):
    """Phase D: a zone's ships revealed onto the loading track; ``order`` is the loading order."""

    zone: int
    order: tuple[str, ...]


class ShipLoaded(Event, frozen=True, kw_only=True):
    """Phase D: goods bought for a ship, which returns to its harbour."""

    player: int
    ship: str
    goods: Goods
    cost: int


class ShipLeftInFarEast(Event, frozen=True, kw_only=True):
    """Phase D: a ship stays face up in its zone for 1."""

    player: int
    ship: str


class EuropeDemanded(Event, frozen=True, kw_only=True):
    """Phase E: the Europe card revealed; ``removed`` cubes taken from the cheapest space up."""

    card: str
    removed: Goods


class GoodsSold(Event, frozen=True, kw_only=True):
    """Phase E: goods sold from the warehouse (``ship`` empty) or unloaded from a ship."""

    player: int
    ship: str
    sold: Goods
    stored: Goods
    income: int


class Payment(msgspec.Struct, frozen=True, kw_only=True):
    """A dividend: ``payer`` (-1: the supply, for the neutral company) pays ``payee``."""

    payer: int
    payee: int
    amount: int


class EpochEnded(Event, frozen=True, kw_only=True):
    """Phase F: stock moves by rank and growth, new income markers, income to treasuries, dividends."""

    epoch: int
    ranking: tuple[int, ...]
    rank_moves: tuple[int, ...]
    income_markers: tuple[int, ...]
    growth: tuple[int, ...]
    dividends: tuple[Payment, ...]


class GameEnded(Event, frozen=True, kw_only=True):
    """Final scoring: wealth per seat and the ranking after every tie-break."""

    ranking: tuple[int, ...]
    scores: tuple[int, ...]
    tie_break: str


EicEvent = (
    GameSetUp
    | EpochBegan
    | TurnBegan
    | EnvoyPlaced
    | EnvoyRecalled
    | NeutralEnvoysPlaced
    | PhaseBegan
    | InitiativeChanged
    | SharesSold
    | StartSharePledged
    | StartShareRedeemed
    | ShareBought
    | Passed
    | MarketCardChosen
    | MarketCardsDrawn
    | ShipSent
    | FarEastSupplied
    | ShipsRevealed
    | ShipLoaded
    | ShipLeftInFarEast
    | EuropeDemanded
    | GoodsSold
    | EpochEnded
    | GameEnded
)
