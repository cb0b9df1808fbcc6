"""What a player can ask for (rulebook, phases A–E and the optional pledging rule)."""

from __future__ import annotations

from domain.eic.state import NO_GOODS, Goods
from domain.engine import Command


class PlaceEnvoy(Command, frozen=True, kw_only=True):
    """Phase A: put envoy ``envoy`` (0–2) on an ability ``space`` or ``"central"``.

    ``ship`` names the tile bought with a Ship ability, ``discard`` the id of a ship given up to free a
    dock, ``site`` the trading-post site.
    """

    envoy: int
    space: str
    ship: str = ""
    discard: str = ""
    site: str = ""


class RecallEnvoy(Command, frozen=True, kw_only=True):
    """Phase A, only when no placement is possible: the envoy stays out this epoch (see rules.envoys)."""

    envoy: int


class BuyShare(Command, frozen=True, kw_only=True):
    """Phase B: buy one share of ``company`` at its track value."""

    company: int


class RedeemStartShare(Command, frozen=True, kw_only=True):
    """Phase B, pledging rule: buy back one pledged start share at the current value."""


class Pass(Command, frozen=True, kw_only=True):
    """Phase B: buy nothing this round."""


class SellShares(Command, frozen=True, kw_only=True):
    """Sell ``count`` ordinary shares of ``company`` during one's own action (not in phase B)."""

    company: int
    count: int


class PledgeStartShare(Command, frozen=True, kw_only=True):
    """Pledging rule: pledge one start share for half its value, rounded down, at any own action."""


class ChooseMarketCard(Command, frozen=True, kw_only=True):
    """Phase C, Influence: the first envoy on the space picks this epoch's card secretly."""

    card: str


class SendShip(Command, frozen=True, kw_only=True):
    """Phase C: put one ship from the harbour face down into zone 1, 2 or 3."""

    ship: str
    zone: int


class LoadShip(Command, frozen=True, kw_only=True):
    """Phase D: buy these goods (tea, spices, coffee, silk) for the ship first on the loading track."""

    goods: Goods = NO_GOODS


class LeaveShipInFarEast(Command, frozen=True, kw_only=True):
    """Phase D: buy nothing, pay 1 and leave the ship face up in its zone for the next epoch."""


class SellFromWarehouse(Command, frozen=True, kw_only=True):
    """Phase E: sell these goods from one's warehouses (the rest stay stored)."""

    goods: Goods = NO_GOODS


class UnloadShip(Command, frozen=True, kw_only=True):
    """Phase E: unload ``ship`` whole: ``store`` goes to the warehouses, everything else is sold."""

    ship: str
    store: Goods = NO_GOODS


EicCommand = (
    PlaceEnvoy
    | RecallEnvoy
    | BuyShare
    | RedeemStartShare
    | Pass
    | SellShares
    | PledgeStartShare
    | ChooseMarketCard
    | SendShip
    | LoadShip
    | LeaveShipInFarEast
    | SellFromWarehouse
    | UnloadShip
)
