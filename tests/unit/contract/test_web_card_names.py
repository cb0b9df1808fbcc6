"""The web client names East India Companies' market cards by what they print: its table is data.py's."""

from __future__ import annotations

import json
from pathlib import Path

from domain.eic import data

CARDS_JS = Path(__file__).parents[3] / "services" / "gateway" / "static" / "js" / "boards" / "eic-cards.js"


def test_the_clients_market_cards_are_the_engines() -> None:
    text = CARDS_JS.read_text()
    table = json.loads(text[text.index("= ") + 2 : text.rindex(";")])
    expected = {
        card: {"market": market, "deck": deck, "base": list(base), "extra": list(extra)}
        for market, cards in (("far_east", data.FAR_EAST_CARDS), ("europe", data.EUROPE_CARDS))
        for card, (deck, base, extra) in cards.items()
    }
    assert table == expected


MARKETS_JS = CARDS_JS.with_name("eic-markets.js")


def test_the_clients_market_prices_are_the_engines() -> None:
    text = MARKETS_JS.read_text().split("export const STOCK = ")[0]
    table = json.loads(text[text.index("= ") + 2 : text.rindex(";")])
    expected = {
        market: {str(side): [list(column) for column in columns] for side, columns in sides.items()}
        for market, sides in (("far_east", data.FAR_EAST), ("europe", data.EUROPE))
    }
    assert table == expected


def test_the_clients_stock_track_is_the_engines() -> None:
    text = MARKETS_JS.read_text().split("export const STOCK = ")[1]
    table = json.loads(text[: text.rindex(";")])
    assert table == {"values": list(data.STOCK_VALUES), "dividends": list(data.DIVIDENDS)}


WORDS_JS = CARDS_JS.with_name("eic-words.js")


def test_the_clients_ships_are_the_engines() -> None:
    """A new ship is offered with its cost, speed and tonnage: the client's table is SHIP_TYPES."""
    line = next(x for x in WORDS_JS.read_text().splitlines() if x.startswith("export const SHIPS = "))
    quoted = line.split("= ", 1)[1].rstrip(";").replace("SH", '"SH').replace(":", '":')
    table = json.loads(quoted)
    expected = {
        kind: [t.epoch, t.cost, t.speed, t.tonnage]
        for kind, t in data.SHIP_TYPES.items()
        if kind in data.BUYABLE_SHIPS
    }
    assert table == expected
