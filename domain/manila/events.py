"""What happened (past-tense names). Chance outcomes (the deal, dice) are written into the events."""

from __future__ import annotations

from typing import Literal

from domain.engine import Event, Outcome
from domain.manila.commands import PilotMove

Hand = tuple[str, ...] | None


class GameStarted(Event, frozen=True, kw_only=True, omit_defaults=True):
    """The table: seats and options. ``rules``: the rules version (``state.RULES``); version 1 is left out
    of the encoding, so the streams recorded before versions existed keep their bytes."""

    seats: int
    variant_boarding: bool
    deal: str
    rules: int = 1


class SharesDealt(Event, frozen=True, kw_only=True):
    """Two secret shares per seat (None where the viewer may not see them) and the open supply."""

    hands: tuple[Hand, ...]
    supply: tuple[int, ...]


class VoyageStarted(Event, frozen=True, kw_only=True):
    """A new voyage; ``opener`` opens the auction (oldest player first, then the last harbour master)."""

    voyage: int
    opener: int


class BidPlaced(Event, frozen=True, kw_only=True):
    """A bid for the harbour master's office, higher than every bid before it."""

    seat: int
    amount: int


class BidPassed(Event, frozen=True, kw_only=True):
    """A seat did not outbid and is out of this auction for good."""

    seat: int


class HarbourMasterChosen(Event, frozen=True, kw_only=True):
    """The auction's winner pays ``price`` (0 when nobody bid and the old harbour master stays)."""

    seat: int
    price: int


class LoanTaken(Event, frozen=True, kw_only=True):
    """A share pledged for 12; ``good`` is None for viewers other than the owner (face down)."""

    seat: int
    good: str | None
    forced: bool = False


class LoanRepaid(Event, frozen=True, kw_only=True):
    """15 paid back; the pledged share is free again (its good hidden from others)."""

    seat: int
    good: str | None


class ShareBought(Event, frozen=True, kw_only=True):
    """The harbour master took an open share (public: the supply is face up)."""

    seat: int
    good: str
    price: int


class ShareSkipped(Event, frozen=True, kw_only=True):
    """The harbour master bought no share this voyage."""

    seat: int


class BoatsLoaded(Event, frozen=True, kw_only=True):
    """The three loaded goods and their start fields (sum 9)."""

    goods: tuple[str, ...]
    starts: tuple[int, ...]


class AccomplicePlaced(Event, frozen=True, kw_only=True):
    """``paid`` went to the office, ``received`` came from it (insurance: 10); ``seat_index`` on a boat."""

    seat: int
    field: str
    paid: int
    received: int = 0
    seat_index: int | None = None
    stowaway: bool = False


class PlacementPassed(Event, frozen=True, kw_only=True):
    """A seat placed nothing this round; that accomplice is forfeit for the voyage."""

    seat: int


class BoatsPiloted(Event, frozen=True, kw_only=True):
    """A pilot moved boats; one pushed beyond 13 takes the next free harbour field at once."""

    seat: int
    pilot: Literal["small", "big"]
    moves: tuple[PilotMove, ...]


class PilotPassed(Event, frozen=True, kw_only=True):
    """A pilot declined to move a boat."""

    seat: int
    pilot: Literal["small", "big"]


class DiceRolled(Event, frozen=True, kw_only=True):
    """Dice round ``roll``: one die per boat in boat order; boats at sea move exactly that far."""

    roll: int
    values: tuple[int, ...]


class PirateBoarded(Event, frozen=True, kw_only=True):
    """A pirate took ``seat_index`` of a boat on 13, sending ``displaced`` home (variant) if any."""

    seat: int
    good: str
    seat_index: int
    displaced: int | None = None


class PirateStayed(Event, frozen=True, kw_only=True):
    """A pirate did not board (by choice, or ``forced`` because no boat had room)."""

    seat: int
    forced: bool = False


class BoatPlundered(Event, frozen=True, kw_only=True):
    """Accomplices aboard go home unpaid; the pirates share the cargo value (one share per pirate seat)."""

    good: str
    returned: tuple[int, ...]
    pirates: tuple[int, ...]
    shares: tuple[int, ...]


class PlunderedBoatSent(Event, frozen=True, kw_only=True):
    """The pirate captain's choice for a plundered boat."""

    seat: int
    good: str
    to: Literal["harbour", "shipyard"]


class BoatsBerthed(Event, frozen=True, kw_only=True):
    """End of the voyage: the boats still out take the next free harbour or shipyard fields."""

    harbour: tuple[str, ...]
    shipyard: tuple[str, ...]


class Payout(Event, frozen=True, kw_only=True):
    """The office pays ``amount`` to ``seat`` for ``reason`` (cargo, harbour_a, shipyard_b …)."""

    seat: int
    reason: str
    amount: int


class InsuranceClaimPaid(Event, frozen=True, kw_only=True):
    """A boat in shipyard field ``field``: the agent pays ``by_agent``, the office ``by_office``; the
    money goes to ``to_seat`` (the renter) or to the office when the field is unrented (None)."""

    field: str
    agent: int
    to_seat: int | None
    by_agent: int
    by_office: int


class MarketRose(Event, frozen=True, kw_only=True):
    """Each good in port moved one step up the black market (S0 chapter 5)."""

    goods: tuple[str, ...]


class GameEnded(Event, frozen=True, kw_only=True):
    """The outcome, every player's wealth and all shares revealed."""

    outcome: Outcome
    hands: tuple[tuple[str, ...], ...]
    mortgaged: tuple[tuple[str, ...], ...]


ManilaEvent = (
    GameStarted
    | SharesDealt
    | VoyageStarted
    | BidPlaced
    | BidPassed
    | HarbourMasterChosen
    | LoanTaken
    | LoanRepaid
    | ShareBought
    | ShareSkipped
    | BoatsLoaded
    | AccomplicePlaced
    | PlacementPassed
    | BoatsPiloted
    | PilotPassed
    | DiceRolled
    | PirateBoarded
    | PirateStayed
    | BoatPlundered
    | PlunderedBoatSent
    | BoatsBerthed
    | Payout
    | InsuranceClaimPaid
    | MarketRose
    | GameEnded
)
