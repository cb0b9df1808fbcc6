"""What a seat may send (imperative names). Loans may be sent by the seat that is to act, at any step."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.engine import Command


class Bid(Command, frozen=True, kw_only=True):
    """Bid for the harbour master's office; must exceed the highest bid (S0 chapter 1)."""

    amount: int


class PassBid(Command, frozen=True, kw_only=True):
    """Do not outbid: out of this auction for good."""


class BuyShare(Command, frozen=True, kw_only=True):
    """Harbour master: buy one open share at max(5, black-market value)."""

    good: str


class SkipShare(Command, frozen=True, kw_only=True):
    """Harbour master: buy no share this voyage."""


class LoadBoats(Command, frozen=True, kw_only=True):
    """Harbour master: leave one good ashore; start fields of the other three (``data.GOODS`` order)."""

    left_ashore: str
    starts: tuple[int, ...]


class PlaceAccomplice(Command, frozen=True, kw_only=True):
    """Put an accomplice on a field: a good's name (its boat), ``harbour_a`` … ``shipyard_c``,
    ``pirate``, ``small_pilot``, ``big_pilot`` or ``insurance``."""

    field: str


class PassPlacement(Command, frozen=True, kw_only=True):
    """Place nothing this round: the accomplice is forfeit for this voyage."""


class PilotMove(msgspec.Struct, frozen=True, kw_only=True):
    """One boat moved by a pilot: ``steps`` fields forward (positive) or back (negative)."""

    good: str
    steps: int


class MoveBoats(Command, frozen=True, kw_only=True):
    """A pilot's move: small pilot one boat ±1; big pilot one boat ±1/±2 or two boats ±1 each."""

    moves: tuple[PilotMove, ...]


class PassPilot(Command, frozen=True, kw_only=True):
    """A pilot declines to move any boat."""


class BoardBoat(Command, frozen=True, kw_only=True):
    """A pirate boards a boat on field 13 after the second roll. ``displace`` (boarding variant only)
    names the seat whose accomplice is sent home when the boat is full."""

    good: str
    displace: int | None = None


class StayAboard(Command, frozen=True, kw_only=True):
    """A pirate stays in the pirate boat, hoping to plunder after the third roll."""


class SendPlunderedBoat(Command, frozen=True, kw_only=True):
    """The pirate captain sends a plundered boat to the harbour or to the shipyard."""

    good: str
    to: Literal["harbour", "shipyard"]


class TakeLoan(Command, frozen=True, kw_only=True):
    """Pledge one free share of ``good`` for 12 pesos."""

    good: str


class RepayLoan(Command, frozen=True, kw_only=True):
    """Pay 15 pesos to get a pledged share of ``good`` back."""

    good: str


ManilaCommand = (
    Bid
    | PassBid
    | BuyShare
    | SkipShare
    | LoadBoats
    | PlaceAccomplice
    | PassPlacement
    | MoveBoats
    | PassPilot
    | BoardBoat
    | StayAboard
    | SendPlunderedBoat
    | TakeLoan
    | RepayLoan
)
