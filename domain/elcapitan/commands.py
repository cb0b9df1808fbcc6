"""What a player can ask for (rulebook, "Die einzelnen Aktionen" and the expansion rules)."""

from __future__ import annotations

from domain.engine import Command


class BuyCard(Command, frozen=True, kw_only=True):
    """Buy one displayed sailing card (before or after the turn's action)."""

    card: str


class Sail(Command, frozen=True, kw_only=True):
    """Play one sailing card from the hand and sail to ``to`` (destination, sea route or interconnection)."""

    card: str
    to: str


class BuildWarehouse(Command, frozen=True, kw_only=True):
    """Build a warehouse on ``site`` (1..12) of the city the ship is in; ``neutral`` with 2 players only."""

    site: int
    neutral: bool = False


class ReopenWarehouse(Command, frozen=True, kw_only=True):
    """Re-open one of one's shut-down warehouses of the ship's city, free, on ``site``."""

    site: int
    neutral: bool = False


class BuildFortress(Command, frozen=True, kw_only=True):
    """Build a fortress on the first free fortress site of the ship's city."""


class TakeLoan(Command, frozen=True, kw_only=True):
    """Sail free to the bank and take one loan of 10 or 16 Florin; the turn ends at once."""

    amount: int


class MovePirate(Command, frozen=True, kw_only=True):
    """Move the pirate ship to ``to``, harbour space ``space``.

    ``free``: the move owed on arriving at Islas Canarias (collects the protection charge); otherwise
    with the sailing cards ``cards`` from the hand, any number, played in the order named, each leg from
    where the previous one ended, or for 2 Florin a step when ``cards`` is empty. (Games started under
    rules 1 name a card set sorted, playable in some order, none of it superfluous.)
    """

    to: str
    space: int
    free: bool = False
    cards: tuple[str, ...] = ()


class EndTurn(Command, frozen=True, kw_only=True):
    """End the turn (after the action, or when nothing else is possible)."""


class RepayLoan(Command, frozen=True, kw_only=True):
    """After a payday: repay loan number ``loan`` (index into one's loans)."""

    loan: int


class ExtendLoan(Command, frozen=True, kw_only=True):
    """After payday 1 or 2: flip loan number ``loan`` (once per loan)."""

    loan: int


class ChooseStartPlayer(Command, frozen=True, kw_only=True):
    """The poorest player names the next phase's start player."""

    seat: int


ElCapitanCommand = (
    BuyCard
    | Sail
    | BuildWarehouse
    | ReopenWarehouse
    | BuildFortress
    | TakeLoan
    | MovePirate
    | EndTurn
    | RepayLoan
    | ExtendLoan
    | ChooseStartPlayer
)
