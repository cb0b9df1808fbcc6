"""Printed El Capitán data: board, cities, cards, charts, loans (every printed number lives here alone).

# source: the project's research note elcapitan.md, in docs/sources/elcapitan.md (sections 3–10, YAML block
# of section 10), which collects the rulebooks (the German one, DE, wins over the English EN and EN-B;
# docs/sources.md) and fills the values printed only in images with a PROPOSED set. Each table names its
# confidence; a confirmed printed value replaces a proposed one here without touching any rule code.
"""

from __future__ import annotations

from typing import Final, NamedTuple

DATA_CONFIDENCE: Final = "proposed"
"""Announced in ``GameStarted``: the board numbers are the proposed set of elcapitan.md, not the print."""


class CityData(NamedTuple):
    """One city tile: grid square, harbour costs, fortress costs, U-track values and shut-down sites."""

    name: str
    row: int
    col: int
    harbours: tuple[int, ...]
    fortresses: tuple[int, ...]
    track: tuple[int, ...]  # track[i] is printed on site i+1; track[12] is the last (unbuildable) space
    dark_sites: tuple[int, ...]  # site numbers (1..12) that shut a warehouse down
    triangle_site: int | None  # extra shut-down site with 2 or 3 players only
    off_board: bool = False


# source: elcapitan.md §4.3 value classes — PROPOSED (Marseille's harbours 4/5, fortresses 8/10 CONFIRMED
# by the rulebook; its sites 2/3 = 4/8 INFERRED from the backward-building example).
_TRACK_A: Final = (0, 4, 8, 12, 16, 20, 24, 28, 32, 28, 24, 20, 16)
_TRACK_B: Final = (0, 3, 6, 9, 12, 15, 18, 21, 24, 21, 18, 15, 12)
_TRACK_C: Final = (0, 2, 4, 6, 8, 10, 12, 14, 16, 14, 12, 10, 8)
_TRACK_PORTO: Final = (0, 5, 10, 15, 20, 25, 30, 35, 40, 35, 30, 25, 20)
# source: elcapitan.md §4.3 shut-down layout — PROPOSED positions (the mechanism is CONFIRMED).
_DARK: Final = (6, 8, 10)
_TRIANGLE: Final = 5
# source: elcapitan.md §8 Lisboa — "only two" dark sites CONFIRMED, positions PROPOSED.
_LISBOA_DARK: Final = (7, 10)


def _a(name: str, row: int, col: int) -> CityData:
    return CityData(name, row, col, (4, 5), (8, 10), _TRACK_A, _DARK, _TRIANGLE)


def _b(name: str, row: int, col: int) -> CityData:
    return CityData(name, row, col, (3, 4), (6, 8), _TRACK_B, _DARK, _TRIANGLE)


def _c(name: str, row: int, col: int) -> CityData:
    return CityData(name, row, col, (2, 3), (4, 6), _TRACK_C, _DARK, _TRIANGLE)


# source: elcapitan.md §3 grid (rows/cols CONFIRMED for the left column, Napoli, right column;
# Venezia/Athina/Tunis ONE SOURCE) and §4.3 classes (PROPOSED). Main board in row order.
MAIN_CITIES: Final = (
    _a("marseille", 1, 1),
    _b("venezia", 1, 2),
    _c("constantinople", 1, 3),
    _c("valencia", 2, 1),
    _a("napoli", 2, 2),
    _b("athina", 2, 3),
    _b("tanger", 3, 1),
    _c("tunis", 3, 2),
    _a("alexandria", 3, 3),
)

# source: elcapitan.md §8 expansion cities. Porto: 3 harbours, 1 fortress site, removal CONFIRMED, numbers
# PROPOSED. Lisboa: harbours 0/1 CONFIRMED, sites 3–4 = 4/6 INFERRED, rest PROPOSED. Islas Canarias: all
# numbers PROPOSED; pirate start on harbour 2 CONFIRMED.
EXPANSION_CITIES: Final = {
    "porto": CityData("porto", 1, 0, (4, 5, 6), (12,), _TRACK_PORTO, _DARK, _TRIANGLE, off_board=True),
    "lisboa": CityData("lisboa", 2, 0, (0, 1), (4, 6), _TRACK_C, _LISBOA_DARK, None, off_board=True),
    "canarias": CityData("canarias", 3, 0, (3, 4), (6, 8), _TRACK_B, _DARK, _TRIANGLE, off_board=True),
}
EXPANSIONS: Final = ("porto", "lisboa", "canarias")
CITY_BY_NAME: Final = {c.name: c for c in (*MAIN_CITIES, *EXPANSION_CITIES.values())}


def city_names(expansions: tuple[str, ...]) -> tuple[str, ...]:
    """The cities in play: the nine of the board, then the chosen expansion tiles in fixed order."""
    return tuple(c.name for c in MAIN_CITIES) + tuple(name for name in EXPANSIONS if name in expansions)


PORTO: Final = "porto"
LISBOA: Final = "lisboa"
CANARIAS: Final = "canarias"
PIRATE_START_SPACE: Final = 1  # second harbour space (0-based); CONFIRMED

# source: elcapitan.md §5.1 proliferation chart. 3→5, 4→10, 9→60, 10→75, 11→90, 12→110 CONFIRMED;
# 6→20 ONE SOURCE; 1, 2, 5, 7, 8 PROPOSED (ambiguity 22: 1–2 cities pay 0).
PROLIFERATION: Final = (0, 0, 0, 5, 10, 15, 20, 30, 45, 60, 75, 90, 110)  # index = number of cities

# source: elcapitan.md §5.2 — CONFIRMED: first/second/third to reach 9 cities; paid at the third payday.
BONUS_CARDS: Final = (15, 10, 5)
BONUS_CITIES_NEEDED: Final = 9


class LoanData(NamedTuple):
    """One kind of loan card."""

    amount: int
    cards: int
    repay: int
    repay_extended: int


# source: elcapitan.md §7 — CONFIRMED (DE; ambiguity 2: the extended 10-Florin loan costs 16, not 20).
LOANS: Final = (LoanData(10, 18, 12, 16), LoanData(16, 12, 20, 30))

# source: elcapitan.md §2 — CONFIRMED.
MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5
TRIANGLE_MAX_PLAYERS: Final = 3  # the triangle site shuts down with 2 or 3 players only
START_MONEY: Final = 20
WAREHOUSES_PER_PHASE: Final = 6
FORTRESSES_PER_PHASE: Final = 1
NEUTRAL_PER_PHASE: Final = 2  # 2-player game only
WAREHOUSES_PER_COLOUR: Final = 18
FORTRESSES_PER_COLOUR: Final = 3
NEUTRAL_PER_COLOUR: Final = 6
PHASES: Final = 3
DESTINATION_DISPLAY: Final = 4
INTERCONNECTION_DISPLAY: Final = 6
SITES: Final = 12
MAX_IN_A_ROW: Final = 3  # CONFIRMED
MAX_IN_A_ROW_MAIN_AND_NEUTRAL: Final = 4  # CONFIRMED (2 players)

# source: elcapitan.md §8 pirate — CONFIRMED.
PROTECTION_CHARGE: Final = (1, 2, 3)  # per building, by phase
PIRATE_STEP_COST: Final = 2


class DestinationCard(NamedTuple):
    """A destination / sea-route card: sail to ``city`` from anywhere, or up to ``seals`` steps."""

    id: str
    city: str
    seals: int
    cost: int


class InterconnectionCard(NamedTuple):
    """A city interconnection card: sail once between its two cities, either way."""

    id: str
    cities: tuple[str, str]
    cost: int


# source: elcapitan.md §6.1 — 18 cards CONFIRMED; two per city, cost = 2 + seals PROPOSED (Marseille's
# 3-seal card CONFIRMED).
_DESTINATIONS: Final = (
    ("marseille", 1), ("marseille", 3), ("venezia", 2), ("venezia", 3), ("constantinople", 1),
    ("constantinople", 2), ("valencia", 2), ("valencia", 3), ("napoli", 1), ("napoli", 2),
    ("athina", 1), ("athina", 3), ("tanger", 1), ("tanger", 2), ("tunis", 1), ("tunis", 3),
    ("alexandria", 2), ("alexandria", 3),
)  # fmt: skip
DESTINATION_CARDS: Final = tuple(
    DestinationCard(f"D{i + 1:02d}", city, seals, 2 + seals) for i, (city, seals) in enumerate(_DESTINATIONS)
)


def _interconnections() -> tuple[InterconnectionCard, ...]:
    # source: elcapitan.md §6.2 — one card per pair (36, INFERRED); cost = grid steps (PROPOSED; fits
    # Venezia–Tanger 3 CONFIRMED and Marseille–Napoli 2 ONE SOURCE).
    cards: list[InterconnectionCard] = []
    for i, a in enumerate(MAIN_CITIES):
        for b in MAIN_CITIES[i + 1 :]:
            cost = abs(a.row - b.row) + abs(a.col - b.col)
            cards.append(InterconnectionCard(f"I{len(cards) + 1:02d}", (a.name, b.name), cost))
    return tuple(cards)


INTERCONNECTION_CARDS: Final = _interconnections()


# Confidence of each table above (elcapitan.md's scale folded to two words): "confirmed" when every value
# in it is printed in a rulebook or found in two sources; "proposed" when any value is the PROPOSED fill-in.
CONFIDENCE: Final = {
    "MAIN_CITIES": "proposed",  # grid squares confirmed/one source; costs and tracks proposed but Marseille's
    "EXPANSION_CITIES": "proposed",  # counts and Lisboa 0/1 confirmed; the rest proposed
    "PROLIFERATION": "proposed",  # 3, 4, 9, 10, 11, 12 cities confirmed; 1, 2, 5, 7, 8 proposed; 6 one source
    "BONUS_CARDS": "confirmed",
    "LOANS": "confirmed",
    "START_MONEY": "confirmed",  # with the supply per phase, display sizes, phases and row limits
    "PROTECTION_CHARGE": "confirmed",
    "PIRATE_STEP_COST": "confirmed",
    "DESTINATION_CARDS": "proposed",  # 18 cards confirmed; cities, seals, costs proposed
    "INTERCONNECTION_CARDS": "proposed",  # one per pair inferred; costs = grid steps proposed (2 known)
}
