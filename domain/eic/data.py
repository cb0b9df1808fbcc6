"""Printed tables of East India Companies.

Provenance marks follow the project's research note ``eic.md``, in ``docs/sources/eic.md``: RULEBOOK (the German HUCH! rulebook), REVIEW, or
PROPOSED (section B of eic.md: no printed value could be found, so these stand in for them and can be
replaced here without touching any rule code). ``BOARD_DATA`` names the set in use.
"""

from __future__ import annotations

from typing import Final

BOARD_DATA: Final = "proposed"  # source: eic.md, "How to use it": say that the data is the proposed set

MIN_PLAYERS: Final = 2  # source: rulebook, "Das 2-Personen-Spiel"
MAX_PLAYERS: Final = 4  # source: rulebook, Spielmaterial (4 harbours)
EPOCHS: Final = 5  # source: rulebook, Spielablauf ("5 Runden, die Epochen genannt werden")
EPOCH_LABELS: Final = ("1700-1750", "1750-1800", "1800-1850", "1850-1900", "1900-1950")  # source: eic.md B7

GOODS: Final = ("tea", "spices", "coffee", "silk")  # source: rulebook, Spielmaterial (Waren)
TEA, SPICES, COFFEE, SILK = 0, 1, 2, 3
GOOD_CUBES: Final = (
    33,
    30,
    28,
    23,
)  # source: rulebook, Spielmaterial ("33 Grün, 30 Orange, 28 Braun, 23 Weiß")

START_MONEY: Final = {
    4: (10, 10, 11, 12),
    3: (10, 11, 12),
    2: (10, 11),
}  # source: rulebook, Initiative; 3-/2-player
SHARES_ON_EXCHANGE: Final = {4: 7, 3: 6, 2: 6}  # source: rulebook, Börse set-up and 3-player rules
START_SHARES: Final = 2  # source: rulebook, Spielmaterial ("2 Startaktien pro Spieler")
ENVOYS: Final = 3  # source: rulebook, Spielmaterial ("3 pro Spieler")
TRADING_POSTS: Final = 2  # source: rulebook, Spielmaterial ("2 pro Spieler")
TRADING_POST_COST: Final = 3  # source: rulebook, Details ("Kosten: 3 GS")
LEAVE_IN_FAR_EAST_COST: Final = 1  # source: rulebook, D ("Zahle 1 GS")
FULL_MARKET_PRICE: Final = 1  # source: rulebook, E ("Der Verkaufspreis dieser Ware ist dann 1")
JOIN_FEE: Final = 1  # source: rulebook, A ("1 GS an jeden Spieler")
BASE_DOCKS: Final = 2  # source: rulebook, Häfen ("Jeder Hafen kann zwei Schiffe aufnehmen")
WAREHOUSE: Final = (2, 1)  # source: rulebook, Hafenerweiterungen (2 for level 1, 1 for level 2)
RANK_MOVES: Final = {4: (2, 1, 0, -1), 3: (2, 1, 0)}  # source: rulebook, F (−1 only with four)

ZONE_TRAVEL: Final = (
    2,
    1,
    0,
)  # source: rulebook, C (2 GS zone I, 1 GS zone II); zone III free: eic.md A4 MED
ZONE_GOODS: Final = ((SILK, TEA), (COFFEE, TEA), (SPICES, TEA))  # source: rulebook, D (Zone I Seide+Tee …)
ZONE_NAMES: Final = ("China", "Southeast Asia", "India")  # source: rulebook, C
# source: eic.md B3 (PROPOSED site names; Formosa and Bombay: RULEBOOK, 3-player rules)
SITES: Final = (("Canton", "Macao", "Formosa"), ("Batavia", "Malacca"), ("Bombay", "Madras", "Calcutta"))
CLOSED_SITES_FEW_PLAYERS: Final = (
    "Formosa",
    "Bombay",
)  # source: rulebook, 3-player rules; eic.md D1 (2 and 3)

# Personalities in ring order (source: eic.md A3, PROPOSED ring; Governor's neighbours RULEBOOK example).
PERSONALITIES: Final = ("Governor", "Shipowner", "Investor", "Merchant", "Captain")

# Ability spaces: (id, personality). source: eic.md B2 / C "spaces".
SPACES: Final = (
    ("GOV_INFLUENCE_FE", "Governor"),
    ("GOV_TRADING_POST", "Governor"),
    ("SHP_SHIP", "Shipowner"),
    ("SHP_HARBOUR_EXT", "Shipowner"),
    ("INV_SHIP", "Investor"),
    ("INV_INFLUENCE_EU", "Investor"),
    ("MER_TRADE_SPICES", "Merchant"),
    ("MER_TRADE_COFFEE", "Merchant"),
    ("MER_TRADE_SILK", "Merchant"),
    ("CAP_EXPERTISE", "Captain"),
    ("CAP_CARTOGRAPHY", "Captain"),
)
SPACE_IDS: Final = tuple(s for s, _ in SPACES)
SPACE_OWNER: Final = dict(SPACES)
TRADE_GOOD: Final = {
    "MER_TRADE_SPICES": SPICES,
    "MER_TRADE_COFFEE": COFFEE,
    "MER_TRADE_SILK": SILK,
}  # eic.md B2


class ShipType:
    """One printed ship tile: availability epoch, cost, speed, tonnage (eic.md B1, PROPOSED)."""

    __slots__ = ("cost", "epoch", "kind", "speed", "tonnage")

    def __init__(self, kind: str, epoch: int, cost: int, speed: int, tonnage: int) -> None:
        self.kind, self.epoch, self.cost, self.speed, self.tonnage = kind, epoch, cost, speed, tonnage


# source: eic.md B1 (PROPOSED values; Galleons are the two start ships, RULEBOOK)
SHIP_TYPES: Final = {
    t.kind: t
    for t in (
        ShipType("G1", 0, 0, 1, 3),
        ShipType("G2", 0, 0, 1, 3),
        ShipType("SH1", 1, 5, 2, 3),
        ShipType("SH2", 1, 6, 1, 5),
        ShipType("SH3", 2, 8, 3, 3),
        ShipType("SH4", 2, 9, 2, 5),
        ShipType("SH5", 3, 11, 4, 3),
        ShipType("SH6", 3, 12, 2, 7),
        ShipType("SH7", 4, 14, 4, 5),
        ShipType("SH8", 4, 16, 3, 7),
    )
}
BUYABLE_SHIPS: Final = ("SH1", "SH2", "SH3", "SH4", "SH5", "SH6", "SH7", "SH8")
GALLEONS: Final = ("G1", "G2")
FASTEST_SHIP: Final = {1: "SH1", 2: "SH3", 3: "SH5", 4: "SH7", 5: "SH7"}  # eic.md B1: epoch 5 reads epoch 4
LARGEST_SHIP: Final = {1: "SH2", 2: "SH4", 3: "SH6", 4: "SH8", 5: "SH8"}

# Market columns (source: eic.md B4, PROPOSED). Far East: dearest (filled first) to cheapest.
# Europe: lowest space (filled first, dearest) to top. The int is the number of light (pre-filled) spaces.
FAR_EAST: Final = {
    4: (
        (4, 4, 3, 3, 3, 2, 2, 2, 1, 1),
        (5, 4, 4, 3, 3, 3, 2, 2, 1),
        (5, 5, 4, 4, 3, 3, 2, 2),
        (6, 6, 5, 5, 4, 4, 3),
    ),
    3: ((4, 4, 3, 3, 3, 2, 2, 1), (5, 4, 4, 3, 3, 2, 2), (5, 5, 4, 4, 3, 3), (6, 6, 5, 5, 4)),
}
EUROPE: Final = {
    4: (
        (7, 6, 6, 5, 5, 4, 4, 3, 3, 2),
        (8, 7, 7, 6, 6, 5, 5, 4, 3),
        (9, 8, 7, 7, 6, 6, 5, 4),
        (10, 9, 9, 8, 7, 6, 5),
    ),
    3: ((7, 6, 6, 5, 5, 4, 4, 3), (8, 7, 7, 6, 6, 5, 4), (9, 8, 7, 7, 6, 6), (10, 9, 9, 8, 7)),
}
PREFILLED: Final = {4: (4, 3, 3, 2), 3: (3, 2, 2, 2)}  # source: eic.md B4 (light spaces, both markets)

# Stock exchange track (source: eic.md B5; 4, 5, 6 at the start: RULEBOOK example).
STOCK_VALUES: Final = (
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
    15,
    16,
    18,
    20,
    22,
    24,
    26,
    28,
    30,
    32,
    35,
    38,
    41,
    44,
    48,
    52,
    56,
    60,
    65,
)
DIVIDENDS: Final = (0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10)
INCOME_TRACK_TOP: Final = 12  # source: eic.md B6 (0 … 120+, steps of 10: RULEBOOK example)

# Market cards: id -> (deck, base (tea, spices, coffee, silk), extra with 4 players). source: eic.md C (PROPOSED)
FAR_EAST_CARDS: Final = {
    "FE-I-1": (1, (2, 1, 0, 0), (1, 0, 0, 0)),
    "FE-I-2": (1, (0, 2, 1, 0), (0, 1, 0, 0)),
    "FE-I-3": (1, (1, 0, 2, -1), (0, 0, 1, 0)),
    "FE-I-4": (1, (1, 1, 1, 0), (0, 0, 0, 1)),
    "FE-I-5": (1, (3, -1, 0, 1), (0, 1, 0, 0)),
    "FE-I-6": (1, (0, 0, 1, 2), (1, 0, 0, 0)),
    "FE-I-7": (1, (1, 1, 0, 1), (0, 0, 1, 0)),
    "FE-II-1": (2, (2, 1, 1, 0), (1, 1, 0, 0)),
    "FE-II-2": (2, (1, 2, 0, 1), (0, 0, 1, 1)),
    "FE-II-3": (2, (3, 0, 1, -1), (0, 1, 1, 0)),
    "FE-II-4": (2, (0, 1, 2, 1), (2, 0, 0, 0)),
    "FE-II-5": (2, (1, 1, 1, 1), (1, 0, 0, 1)),
    "FE-II-6": (2, (2, -1, 1, 2), (0, 1, 1, 0)),
    "FE-III-1": (3, (3, 1, 1, 0), (1, 1, 0, 0)),
    "FE-III-2": (3, (1, 3, 0, 1), (0, 0, 1, 1)),
    "FE-III-3": (3, (2, 1, 2, 0), (1, 1, 1, 0)),
    "FE-III-4": (3, (0, 2, 1, 2), (2, 0, 0, 0)),
    "FE-III-5": (3, (4, 0, 1, -1), (0, 1, 0, 1)),
    "FE-III-6": (3, (1, 1, 3, 1), (1, 1, 0, 0)),
    "FE-III-7": (3, (2, 2, -1, 2), (0, 0, 2, 0)),
}
EUROPE_CARDS: Final = {
    "EU-I-1": (1, (2, 0, 0, 1), (1, 0, 0, 0)),
    "EU-I-2": (1, (0, 2, 0, 0), (0, 1, 0, 0)),
    "EU-I-3": (1, (0, 0, 2, 1), (0, 0, 1, 0)),
    "EU-I-4": (1, (1, 0, 0, 2), (0, 0, 0, 1)),
    "EU-I-5": (1, (1, 1, 1, 0), (1, 0, 0, 0)),
    "EU-I-6": (1, (-1, 1, 1, 1), (0, 1, 0, 0)),
    "EU-I-7": (1, (1, 1, -1, 1), (0, 0, 1, 0)),
    "EU-II-1": (2, (2, 1, 1, 0), (1, 0, 0, 1)),
    "EU-II-2": (2, (0, 2, 1, 1), (1, 1, 0, 0)),
    "EU-II-3": (2, (1, 0, 2, 1), (0, 1, 1, 0)),
    "EU-II-4": (2, (3, -1, 0, 1), (0, 0, 1, 1)),
    "EU-II-5": (2, (1, 1, 1, 1), (1, 0, 1, 0)),
    "EU-II-6": (2, (0, 1, -1, 3), (2, 0, 0, 0)),
    "EU-III-1": (3, (3, 1, 1, 0), (0, 1, 1, 0)),
    "EU-III-2": (3, (1, 2, 2, 0), (1, 0, 0, 1)),
    "EU-III-3": (3, (2, 0, 2, 2), (1, 1, 0, 0)),
    "EU-III-4": (3, (1, 3, 0, 1), (0, 0, 1, 1)),
    "EU-III-5": (3, (4, 1, -1, 0), (0, 1, 1, 1)),
    "EU-III-6": (3, (0, 1, 3, 1), (2, 0, 0, 0)),
    "EU-III-7": (3, (2, 2, 1, 1), (1, 0, 0, 0)),
}
DECK_OF_EPOCH: Final = {1: 1, 2: 1, 3: 2, 4: 3, 5: 3}  # source: eic.md B8 (PROPOSED split I | II | III)

# 2-player neutral cards (source: eic.md B9, PROPOSED contents; their use: RULEBOOK, 2-player rules).
NEUTRAL_ENVOY_CARDS: Final = {
    "NE-1": (("ship_fastest",), ("SHP_SHIP", "CAP_EXPERTISE", "MER_TRADE_SILK")),
    "NE-2": (("ship_largest",), ("INV_SHIP", "GOV_TRADING_POST", "MER_TRADE_COFFEE")),
    "NE-3": (("harbour_ext", "ship_fastest"), ("SHP_HARBOUR_EXT", "INV_INFLUENCE_EU", "CAP_CARTOGRAPHY")),
    "NE-4": (("trading_post_3",), ("GOV_INFLUENCE_FE", "MER_TRADE_SPICES", "SHP_SHIP")),
    "NE-5": (("trading_post_1", "ship_largest"), ("CAP_EXPERTISE", "GOV_TRADING_POST", "INV_SHIP")),
    "NE-6": (("harbour_ext", "trading_post_2"), ("INV_INFLUENCE_EU", "SHP_HARBOUR_EXT", "MER_TRADE_COFFEE")),
}
# Destination cards: a single zone, or an order of zones for "trading post" cards.
NEUTRAL_DESTINATION_CARDS: Final = {
    "ND-1": (1,),
    "ND-2": (1,),
    "ND-3": (2,),
    "ND-4": (2,),
    "ND-5": (3,),
    "ND-6": (3,),
    "ND-7": (1, 2, 3),
    "ND-8": (2, 3, 1),
    "ND-9": (3, 1, 2),
}
NEUTRAL_PRIMARY_GOOD: Final = (SILK, COFFEE, SPICES)  # source: rulebook, 2-player D (Seide, Kaffee, Gewürze)
