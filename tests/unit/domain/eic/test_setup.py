"""Set-up (rulebook, "Spielvorbereitung"; 3- and 2-player changes)."""

from __future__ import annotations

import pytest

from domain.eic import GAME, data
from domain.eic.rules.envoys import free_sites
from domain.engine import RuleViolation

from .helpers import goods_total, shares_total, start


def test_markets_four_player_side_light_spaces_filled():
    state = start(4)
    assert state.far_east == data.PREFILLED[4] == state.europe
    assert state.supply == tuple(c - 2 * p for c, p in zip(data.GOOD_CUBES, data.PREFILLED[4], strict=True))
    assert goods_total(state) == data.GOOD_CUBES


@pytest.mark.parametrize("seats", [2, 3])
def test_markets_two_three_player_side(seats):
    state = start(seats)
    assert state.far_east == data.PREFILLED[3] == state.europe
    assert goods_total(state) == data.GOOD_CUBES


@pytest.mark.parametrize(("seats", "money"), [(4, (10, 10, 11, 12)), (3, (10, 11, 12)), (2, (10, 11))])
def test_random_initiative_with_start_money(seats, money):
    orders = set()
    for seed in range(12):
        state = start(seats, seed=bytes([seed]))
        humans = [p for p in state.initiative if p != state.neutral]
        assert tuple(state.players[p].treasury for p in humans) == money
        orders.add(state.initiative)
    assert len(orders) > 1, "the initiative order is drawn at random"


def test_two_player_neutral_in_third_initiative_slot_without_money():
    state = start(2)
    assert state.companies == 3 and state.neutral == 2
    assert state.initiative[2] == 2
    assert state.players[2].treasury == 0


def test_harbours_galleons_income_marker_posts_envoys_start_shares():
    state = start(4)
    for p in state.players:
        assert [s.kind for s in p.ships] == ["G1", "G2"]
        assert all(s.zone == 0 and s.cargo == (0, 0, 0, 0) for s in p.ships)
        assert p.income_marker == 0 and p.income == 0
        assert p.posts == () and p.extensions == 0
        assert len(p.envoys) == data.ENVOYS
        assert p.pledged == 0  # both start shares held, unpledged


@pytest.mark.parametrize(("seats", "companies", "each"), [(4, 4, 7), (3, 3, 6), (2, 3, 6)])
def test_shares_on_exchange_only_colours_in_play(seats, companies, each):
    state = start(seats)
    assert state.exchange == (each,) * companies
    assert shares_total(state) == (each,) * companies
    assert state.stock == (0,) * companies
    assert data.STOCK_VALUES[0] == 4


@pytest.mark.parametrize("seats", [2, 3])
def test_bombay_and_formosa_closed_with_two_or_three(seats):
    state = start(seats)
    assert "Formosa" not in free_sites(state, 1) and "Bombay" not in free_sites(state, 3)
    four = start(4)
    assert "Formosa" in free_sites(four, 1) and "Bombay" in free_sites(four, 3)


def test_epoch_one_begins_with_the_first_player_placing_an_envoy():
    state = start(4)
    assert state.epoch == 1 and state.phase == "A"
    assert GAME.to_act(state) == frozenset({state.initiative[0]})
    assert all(1 <= d <= 6 for d in (*state.fe_dice, *state.eu_dice))


def test_options_are_checked():
    with pytest.raises(RuleViolation) as err:
        GAME.setup(4, {"pledge": True}, b"s")
    assert err.value.code == "eic.unknown_option"
    with pytest.raises(RuleViolation):
        GAME.setup(4, {"pledging": "yes"}, b"s")
    assert start(3, {"pledging": True}).pledging


def test_first_player_rolls_market_dice_each_epoch_visible_to_all():
    state = start(4)
    spectator = GAME.view(state, None)
    assert spectator.fe_dice == state.fe_dice and spectator.eu_dice == state.eu_dice
    assert spectator.board_data == "proposed"
    _, events = GAME.start(4, {}, b"eic-test")
    began = [e for e in events if type(e).__name__ == "EpochBegan"]
    assert len(began) == 1 and began[0].fe_dice == state.fe_dice
