"""Phase A, "Gesandte einsetzen": placement rules, fees, and each ability with its cost and timing."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic.commands import PlaceEnvoy, RecallEnvoy
from domain.eic.rules.envoys import placements
from domain.engine import RuleViolation

from .helpers import act, occupy, player, start

FREE = ("MER_TRADE_SILK", "MER_TRADE_COFFEE", "MER_TRADE_SPICES", "CAP_CARTOGRAPHY", "INV_INFLUENCE_EU")


def _epoch_two(state, seat, envoys):
    return player(replace(state, epoch=2), seat, envoys=envoys)


def test_example_envoy_placement_around_the_governor():
    """Blue's envoy on the Governor reaches the Governor, Shipowner and Captain, not Investor or Merchant."""
    state = start(4)
    blue = state.actor
    state = _epoch_two(state, blue, ("P:Governor", "S:CAP_CARTOGRAPHY", "P:Merchant"))
    state = occupy(state, "CAP_CARTOGRAPHY", blue)
    spaces = {c.space for c in placements(state, blue) if c.envoy == 0}
    owners = {data.SPACE_OWNER[s] for s in spaces if s != "central"}
    assert owners == {"Governor", "Shipowner", "Captain"}
    assert "CAP_CARTOGRAPHY" not in spaces  # never a space already holding one's own envoy
    assert "central" in spaces
    with pytest.raises(RuleViolation) as err:
        act(state, blue, PlaceEnvoy(envoy=0, space="INV_INFLUENCE_EU"))
    assert err.value.code == "eic.illegal_placement"
    with pytest.raises(RuleViolation):
        act(state, blue, PlaceEnvoy(envoy=0, space="CAP_CARTOGRAPHY"))


def test_example_blue_player_pays_1_to_red():
    state = start(4)
    blue = state.actor
    red = next(p for p in range(4) if p != blue)
    state = occupy(
        _epoch_two(state, blue, ("P:Governor", "P:Governor", "P:Governor")), "SHP_HARBOUR_EXT", red
    )
    before_blue, before_red = state.players[blue].treasury, state.players[red].treasury
    after, _ = act(state, blue, PlaceEnvoy(envoy=0, space="SHP_HARBOUR_EXT"))
    assert after.players[blue].treasury == before_blue - 1
    assert after.players[red].treasury == before_red + 1
    assert after.players[blue].extensions == 1


def test_epoch_one_envoys_go_anywhere():
    state = start(4)
    spaces = {c.space for c in placements(state, state.actor)}
    assert set(data.SPACE_IDS) <= spaces | {"GOV_TRADING_POST"} and "central" in spaces


def test_turns_follow_initiative_until_all_three_envoys_are_placed():
    state = start(3)
    seen = []
    while state.phase == "A":
        seat = state.actor
        seen.append(seat)
        command = next(
            c for c in GAME.legal_commands(state, seat) if isinstance(c, PlaceEnvoy) and c.space in FREE
        )
        state, _ = act(state, seat, command)
    assert seen == list(start(3).initiative) * 3
    assert state.phase == "B"


def test_central_zone_parks_then_moves_to_any_space():
    state = start(4)
    seat = state.actor
    state = _epoch_two(state, seat, ("P:Governor", "P:Governor", "P:Governor"))
    state, _ = act(state, seat, PlaceEnvoy(envoy=0, space="central"))
    assert state.players[seat].envoys[0] == "C:Governor"
    assert not any(seat in o for o in state.occupants)  # no ability
    state = replace(state, actor=seat, step="envoy")
    spaces = {c.space for c in placements(state, seat) if c.envoy == 0}
    assert "INV_INFLUENCE_EU" in spaces and "MER_TRADE_SILK" in spaces  # any space from the centre
    assert "central" not in spaces


def test_ship_ability_pays_the_printed_cost_current_or_earlier_epoch_with_a_dock():
    state = start(4)
    seat = state.actor
    ships = {(c.ship, c.discard) for c in placements(state, seat) if c.space == "SHP_SHIP"}
    assert {k for k, _ in ships} == {"SH1", "SH2"}  # epoch 1 ships only
    assert all(d for _, d in ships), "two Galleons fill both docks: one must be discarded"
    after, _ = act(state, seat, PlaceEnvoy(envoy=0, space="SHP_SHIP", ship="SH1", discard=f"{seat}:G1"))
    assert after.players[seat].treasury == state.players[seat].treasury - 5
    assert [s.kind for s in after.players[seat].ships] == ["SH1", "G2"]  # on the dock G1 freed
    roomy = player(state, seat, extensions=1)
    assert ("SH2", "") in {(c.ship, c.discard) for c in placements(roomy, seat) if c.space == "INV_SHIP"}


def test_harbour_extension_level_one_then_two_then_no_more():
    state = start(4)
    seat = state.actor
    state, _ = act(state, seat, PlaceEnvoy(envoy=0, space="SHP_HARBOUR_EXT"))
    assert state.players[seat].extensions == 1
    state = player(state, seat, extensions=2)
    state = replace(state, actor=seat, step="envoy")
    assert not [c for c in placements(state, seat) if c.space == "SHP_HARBOUR_EXT"]


def test_trading_post_costs_3_free_site_one_per_zone():
    state = start(4)
    seat = state.actor
    state, _ = act(state, seat, PlaceEnvoy(envoy=0, space="GOV_TRADING_POST", site="Canton"))
    assert state.players[seat].posts == ("Canton",)
    assert state.players[seat].treasury == start(4).players[seat].treasury - 3
    state = replace(state, actor=seat, step="envoy")
    sites = {c.site for c in placements(state, seat) if c.space == "GOV_TRADING_POST"}
    assert not sites  # own envoy already on the space
    state = player(occupy(state, "GOV_TRADING_POST"), seat, envoys=("S:SHP_SHIP", "any", "any"))
    sites = {c.site for c in placements(state, seat) if c.space == "GOV_TRADING_POST"}
    assert sites == {"Batavia", "Malacca", "Bombay", "Madras", "Calcutta"}  # not zone I again, not Canton
    poor = player(state, seat, treasury=2)
    assert not [c for c in placements(poor, seat) if c.space == "GOV_TRADING_POST"]


def test_expertise_costs_the_epoch_and_reorders_initiative_in_phase_b():
    state = start(4)
    order = state.initiative
    last = order[-1]
    state = replace(player(state, last, treasury=0), epoch=3)
    assert not [c for c in placements(state, last) if c.space == "CAP_EXPERTISE"]
    state = start(4)
    while state.phase == "A":
        seat = state.actor
        wanted = (
            "CAP_EXPERTISE" if seat in (order[2], order[3]) and state.occupants[9].count(seat) == 0 else None
        )
        legal = [c for c in GAME.legal_commands(state, seat) if isinstance(c, PlaceEnvoy)]
        command = next((c for c in legal if c.space == wanted), None) or next(
            c for c in legal if c.space in FREE
        )
        state, _ = act(state, seat, command)
    experts = [p for p in state.occupants[data.SPACE_IDS.index("CAP_EXPERTISE")]]
    assert experts[:2] == [order[2], order[3]]
    assert state.phase == "B"
    assert state.initiative[: len(experts)] == tuple(experts)
    rest = [p for p in order if p not in experts]
    assert list(state.initiative[len(experts) :]) == rest


def test_recall_only_when_no_placement_is_possible():
    state = start(4)
    seat = state.actor
    assert not [c for c in GAME.legal_commands(state, seat) if isinstance(c, RecallEnvoy)]
    with pytest.raises(RuleViolation):
        act(state, seat, RecallEnvoy(envoy=0))
    # every space taken by others (fees unaffordable) and the envoy already parked in the centre
    stuck = player(state, seat, treasury=0, envoys=("C:any", "S:SHP_SHIP", "S:INV_SHIP"))
    for space in data.SPACE_IDS:
        stuck = occupy(stuck, space, (seat + 1) % 4)
    stuck = occupy(occupy(stuck, "SHP_SHIP", seat), "INV_SHIP", seat)
    assert GAME.legal_commands(stuck, seat) == [RecallEnvoy(envoy=0)]
    after, _ = act(stuck, seat, RecallEnvoy(envoy=0))
    assert after.players[seat].envoys[0] == "R:any"


def test_expertise_cost_is_paid_at_once_to_the_supply():
    state = replace(start(4), epoch=3)
    seat = state.actor
    after, events = act(state, seat, PlaceEnvoy(envoy=0, space="CAP_EXPERTISE"))
    assert events[0].cost == 3
    assert after.players[seat].treasury == state.players[seat].treasury - 3
    assert sum(p.treasury for p in after.players) == sum(p.treasury for p in state.players) - 3


def test_any_unplaced_envoy_may_be_named_they_are_interchangeable():
    """Issue 16: ``PlaceEnvoy(envoy=2, …)`` on a fresh turn was refused with a wrong cause; the three
    unplaced envoys stand on the same spot, so each of them may be named."""
    state = start(4)
    seat = state.actor
    for envoy in (0, 1, 2):
        after, events = act(state, seat, PlaceEnvoy(envoy=envoy, space="MER_TRADE_SILK"))
        assert events[0].envoy == envoy
        assert after.players[seat].envoys[envoy] == "S:MER_TRADE_SILK"
        assert after.players[seat].envoys.count("any") == 2
    placed, _ = act(state, seat, PlaceEnvoy(envoy=2, space="MER_TRADE_SILK"))
    placed = replace(placed, actor=seat, step="envoy")
    with pytest.raises(RuleViolation) as err:
        act(placed, seat, PlaceEnvoy(envoy=2, space="MER_TRADE_COFFEE"))
    assert "already placed" in str(err.value)
    after, _ = act(placed, seat, PlaceEnvoy(envoy=1, space="MER_TRADE_COFFEE"))
    assert after.players[seat].envoys == ("any", "S:MER_TRADE_COFFEE", "S:MER_TRADE_SILK")
