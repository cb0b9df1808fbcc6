"""The warehouse chain of a city (rulebook, "Warenhaus bauen", "Warenhaus schließen", "Wiedereröffnung",
"Der letzte Bauplatz ist mit einem Warenhaus bebaut") and the city's value on payday ("Majorität").
"""

from __future__ import annotations

from domain.elcapitan import data
from domain.elcapitan.rules.board import CITY
from domain.elcapitan.state import EMPTY, CityState, owner


def next_sites(city: CityState) -> tuple[int, ...]:
    """Sites (1..12) the next warehouse may go on; empty when the city is full.

    The first builder chooses site 1 or 2; after a first house on site 2 the second goes on site 1; then
    site by site. Once site 12 is built the chain grows backwards into the sites freed by shut-downs,
    the highest first and site 1 ("0") last.
    """
    if city.frontier == 0:
        return (1, 2)
    if city.frontier == 2 and city.sites[0] == EMPTY and city.sites[1] != EMPTY:
        return (1,)
    if city.frontier < data.SITES:
        return (city.frontier + 1,)
    for site in range(data.SITES, 0, -1):
        if city.sites[site - 1] == EMPTY:
            return (site,)
    return ()


def _run(sites: tuple[int, ...], site: int, belongs: set[int]) -> int:
    """Length of the run of consecutive sites holding colours in ``belongs`` through ``site``."""
    length = 1
    i = site - 2
    while i >= 0 and sites[i] in belongs:
        length, i = length + 1, i - 1
    i = site
    while i < len(sites) and sites[i] in belongs:
        length, i = length + 1, i + 1
    return length


def row_allowed(city: CityState, site: int, colour: int, seats: int) -> bool:
    """No more than three warehouses of one colour in a row (ambiguity 8: a structural rule).

    With 2 players also no more than four of one player's main and neutral colours together; a run of
    the neutral colour alone is bounded by that limit of four (ambiguity 23).
    """
    if seats != 2:
        return _run(city.sites, site, {colour}) <= data.MAX_IN_A_ROW
    seat = owner(colour, seats)
    both = {seat, seat + 2}
    if colour == seat and _run(city.sites, site, {seat}) > data.MAX_IN_A_ROW:
        return False
    return _run(city.sites, site, both) <= data.MAX_IN_A_ROW_MAIN_AND_NEUTRAL


def is_full(city: CityState) -> bool:
    """All twelve sites occupied (or, going forwards, nothing left): nothing more is built there."""
    return not next_sites(city)


def shut_down_site(city: CityState, built_site: int, seats: int) -> int | None:
    """After a placement on ``built_site`` (city already updated): the site whose warehouse is shut down.

    Dark sites (and the triangle with 2–3 players) shut down the foremost warehouse of the chain
    (ambiguity 5: the lowest occupied site). There are no shut-downs once site 12 has been built
    (ambiguity 4; the placement on site 12 itself is never a shut-down).
    """
    if city.frontier == data.SITES:
        return None
    printed = CITY[city.name]
    dark = built_site in printed.dark_sites or (
        seats <= data.TRIANGLE_MAX_PLAYERS and built_site == printed.triangle_site
    )
    if not dark:
        return None
    for site, colour in enumerate(city.sites, start=1):
        if colour != EMPTY:
            return site
    return None


def value(city: CityState) -> int:
    """V: the amount on the next free space after the highest site built (ambiguities 9 and 13).

    After site 12 has been built it is the last space's amount for the rest of the game.
    """
    return CITY[city.name].track[city.frontier]


def operating(city: CityState) -> int:
    """Warehouses standing on the track; shut-down ones on the city picture count for nothing (ambiguity 7)."""
    return sum(1 for colour in city.sites if colour != EMPTY)


def ranking(city: CityState) -> list[tuple[int, int]]:
    """(colour, count) from first rank down; ties go to the colour whose first house is further forward."""
    first: dict[int, int] = {}
    count: dict[int, int] = {}
    for site, colour in enumerate(city.sites):
        if colour == EMPTY:
            continue
        first.setdefault(colour, site)
        count[colour] = count.get(colour, 0) + 1
    order = sorted(count, key=lambda c: (-count[c], first[c]))
    return [(c, count[c]) for c in order]
