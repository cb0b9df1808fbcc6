"""Every number printed on the Manila board and cargo tiles.

Sources: the German rulebook of the 2015 edition (Zoch; "S0") and the project's research note
``manila.md``, in ``docs/sources/manila.md`` (sections named per table; ``docs/sources.md``).
"""

from __future__ import annotations

GAME_KEY = "manila"
MIN_PLAYERS = 3
MAX_PLAYERS = 5

# source: manila.md §1 "Goods" (S0 names the four goods; jade has 4 seats, the others 3)
GOODS: tuple[str, ...] = ("jade", "silk", "nutmeg", "ginseng")

# source: manila.md §1 table "Seat costs, cheapest first" (CONFIRMED; C1, C2, C4, C6, C7)
SEAT_COSTS: dict[str, tuple[int, ...]] = {
    "jade": (3, 4, 5, 5),
    "silk": (3, 4, 5),
    "nutmeg": (2, 3, 4),
    "ginseng": (1, 2, 3),
}

# source: manila.md §1 "Payout on the tile" (S0 Abb. 12: jade 36; Abb. 10: nutmeg 24)
CARGO_VALUE: dict[str, int] = {"jade": 36, "silk": 30, "nutmeg": 24, "ginseng": 18}

# source: S0 "Je 5 Anteilscheine der 4 Waren"; manila.md §1 "Shares"
SHARES_PER_GOOD = 5
# source: manila.md §7.1 / option {"deal": "three_of_each"}: the 2005 and English deal pool
THREE_OF_EACH = 3

# source: manila.md §1 "Black market track" (C1 STOCK_PRICE_LEVELS, C7; S0 Abb. 3 shows 0, 5, 10, 20)
MARKET_TRACK: tuple[int, ...] = (0, 5, 10, 20, 30)
MARKET_END_INDEX = len(MARKET_TRACK) - 1  # a good at 30 ends the game (S0 "Spielende")
# source: S0 "Der Mindestpreis beträgt jedoch 5 PESOS"
MIN_SHARE_PRICE = 5

# source: manila.md §2 table (S0 Abb. 13a/14 give 6 and 8; C = 15 from six implementations)
HARBOUR_COSTS: tuple[int, ...] = (4, 3, 2)
HARBOUR_PAYOUTS: tuple[int, ...] = (6, 8, 15)
SHIPYARD_COSTS: tuple[int, ...] = (4, 3, 2)
SHIPYARD_PAYOUTS: tuple[int, ...] = (6, 8, 15)
BERTH_LETTERS: tuple[str, ...] = ("a", "b", "c")

# source: manila.md §3 (pirate seats 5 each; small pilot 2 from S0; big pilot 5; insurance +10 from S0)
PIRATE_COST = 5
SMALL_PILOT_COST = 2
BIG_PILOT_COST = 5
INSURANCE_INCOME = 10

# source: manila.md §4 "Route" and "Start positions" (S0: fields 0-5, sum 9; field 13 the pirates')
PIRATE_FIELD = 13
START_MAX = 5
START_SUM = 9

# source: S0 "Spielvorbereitung": 30 pesos, 2 shares, 3 accomplices (4 with three players)
START_CASH = 30
START_SHARES = 2
ACCOMPLICES: dict[int, int] = {3: 4, 4: 3, 5: 3}

# source: S0 "Kredit aufnehmen": 12 per pledged share, 15 to repay, 15 penalty per loan at the end
LOAN_AMOUNT = 12
REPAY_AMOUNT = 15
LOAN_PENALTY = 15

# source: S0 red box and manila.md §4 "Rounds per voyage": the pilots act before the last roll
SCHEDULE: dict[int, tuple[str, ...]] = {
    3: ("place", "place", "roll", "place", "roll", "place", "roll"),
    4: ("place", "roll", "place", "roll", "place", "roll"),
    5: ("place", "roll", "place", "roll", "place", "roll"),
}
ROLLS_PER_VOYAGE = 3
BOARDING_ROLL = 2  # S0 "Entern: Nur in der 2. Würfelrunde"
PLUNDER_ROLL = 3  # S0 "Plündern: Nur in der 3. Würfelrunde"

# The placement fields besides the boats (S0 "Wohin mit den Komplizen?").
HARBOUR_FIELDS: tuple[str, ...] = ("harbour_a", "harbour_b", "harbour_c")
SHIPYARD_FIELDS: tuple[str, ...] = ("shipyard_a", "shipyard_b", "shipyard_c")
OTHER_FIELDS: tuple[str, ...] = ("pirate", "small_pilot", "big_pilot", "insurance")
