"""What happened in an El Capitán game. Every chance outcome (deck orders, start player) is written here."""

from __future__ import annotations

from typing import Literal

from domain.engine import Event, Outcome

DeckName = Literal["destination", "interconnection"]


class GameStarted(Event, frozen=True, kw_only=True, omit_defaults=True):
    """Seats, options and start player; ``data`` names the confidence of the board numbers.

    ``rules`` is the rules version the game is decided under (``state.RULES``). Version 1 is left out of
    the encoding, so the streams recorded before versions existed keep their bytes and read as version 1.
    """

    seats: int
    expansions: tuple[str, ...]
    start_player: int
    data: str
    rules: int = 1


class DeckShuffled(Event, frozen=True, kw_only=True):
    """A draw pile was (re)shuffled; ``order`` is hidden from every viewer (None once redacted)."""

    deck: DeckName
    size: int
    order: tuple[str, ...] | None
    from_discard: bool = False


class CardsRevealed(Event, frozen=True, kw_only=True):
    """Cards drawn from the top of a pile into the display."""

    deck: DeckName
    cards: tuple[str, ...]


class CardBought(Event, frozen=True, kw_only=True):
    """A displayed card bought into the hand, for its printed price."""

    seat: int
    card: str
    cost: int


class ShipSailed(Event, frozen=True, kw_only=True):
    """A ship sailed with ``card`` to ``to``; ``harbour`` is EMPTY (-1) when passing a full city."""

    seat: int
    card: str
    to: str
    harbour: int


class WarehouseBuilt(Event, frozen=True, kw_only=True):
    """A warehouse built on ``site`` in ``colour``, paid at the ship's harbour cost."""

    seat: int
    city: str
    site: int
    colour: int
    cost: int


class WarehouseReopened(Event, frozen=True, kw_only=True):
    """A shut-down warehouse taken from the city picture back onto the chain, free."""

    seat: int
    city: str
    site: int
    colour: int


class WarehouseShutDown(Event, frozen=True, kw_only=True):
    """The foremost warehouse left the chain: onto the city picture, or out of the game (Porto)."""

    city: str
    site: int
    colour: int
    removed: bool


class FortressBuilt(Event, frozen=True, kw_only=True):
    """A fortress built on fortress site ``slot`` for its printed price."""

    seat: int
    city: str
    slot: int
    cost: int


class ImmediatePaymentReceived(Event, frozen=True, kw_only=True):
    """Lisboa: paid at once for a warehouse built there."""

    seat: int
    amount: int


class BonusCardTaken(Event, frozen=True, kw_only=True):
    """A proliferation bonus card taken on reaching nine cities (paid at the third payday)."""

    seat: int
    amount: int


class PirateMoved(Event, frozen=True, kw_only=True):
    """The pirate moved; a ship on its new space was displaced to ``displaced_to``."""

    seat: int
    to: str
    space: int
    cost: int
    cards: tuple[str, ...] = ()
    free: bool
    displaced: int
    displaced_to: int


class ProtectionCollected(Event, frozen=True, kw_only=True):
    """Protection charge paid to ``seat`` by each seat (index = paying seat)."""

    seat: int
    city: str
    payments: tuple[int, ...]


class LoanTaken(Event, frozen=True, kw_only=True):
    """A loan card taken; ``cover``: taken to cover a repayment the player could not pay."""

    seat: int
    amount: int
    cover: bool = False


class TurnEnded(Event, frozen=True, kw_only=True):
    """The turn of ``seat`` is over; ``passed``: without an action. The ship leaves a full city."""

    seat: int
    passed: bool = False


class TurnStarted(Event, frozen=True, kw_only=True):
    """The next player's turn (``round`` counts the rounds of the phase)."""

    seat: int
    round: int


class PhaseEndAnnounced(Event, frozen=True, kw_only=True):
    """The round is finished and then comes the payday; ``reason`` names the trigger.

    ``supply_built``: the rulebook's condition, ``seat`` built everything in front of him. ``deadlock``:
    the safeguard, nobody can buy, sail, build or take a loan any more. ``no_building_for_a_round`` is
    never emitted now; it stays readable in logs written by the earlier rule (issue 16).
    """

    seat: int
    reason: Literal["supply_built", "deadlock", "no_building_for_a_round"]


class PaydayHeld(Event, frozen=True, kw_only=True):
    """Per seat: proliferation, majorities, fortresses and (third payday) bonus cards."""

    phase: int
    proliferation: tuple[int, ...]
    majorities: tuple[int, ...]
    fortresses: tuple[int, ...]
    bonuses: tuple[int, ...]


class LoanRepaid(Event, frozen=True, kw_only=True):
    """Loan number ``loan`` repaid at its card's repayment amount."""

    seat: int
    loan: int
    amount: int


class LoanExtended(Event, frozen=True, kw_only=True):
    """Loan number ``loan`` flipped: repaid after the next payday at the higher amount."""

    seat: int
    loan: int


class MoneyChecked(Event, frozen=True, kw_only=True):
    """Kassensturz: cash minus repayments owed; ``chooser`` is the poorest player."""

    wealth: tuple[int, ...]
    chooser: int


class PhaseStarted(Event, frozen=True, kw_only=True):
    """A new phase: the start player and six warehouses + one fortress each (+2 neutral with 2 players)."""

    phase: int
    start_player: int


class GameEnded(Event, frozen=True, kw_only=True):
    """The third payday is over: the outcome, and every hidden pile revealed."""

    outcome: Outcome
    destination_draw: tuple[str, ...]
    interconnection_draw: tuple[str, ...]


ElCapitanEvent = (
    GameStarted
    | DeckShuffled
    | CardsRevealed
    | CardBought
    | ShipSailed
    | WarehouseBuilt
    | WarehouseReopened
    | WarehouseShutDown
    | FortressBuilt
    | ImmediatePaymentReceived
    | BonusCardTaken
    | PirateMoved
    | ProtectionCollected
    | LoanTaken
    | TurnEnded
    | TurnStarted
    | PhaseEndAnnounced
    | PaydayHeld
    | LoanRepaid
    | LoanExtended
    | MoneyChecked
    | PhaseStarted
    | GameEnded
)
