"""Properties over random legal games (hypothesis): termination, conservation, replay, secrecy, agreement."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import commands as cmd
from domain.eic import events as ev
from domain.eic.bots import random_bot
from domain.eic.rules.navigation import deck
from domain.engine import Rng, RuleViolation, rng_for

from .helpers import goods_total, shares_total

SEEDS = st.binary(min_size=8, max_size=32)
SETUPS = st.sampled_from([(s, o) for s in (2, 3, 4) for o in ({}, {"pledging": True})])


def _walk(seats, options, seed):
    """Yield (state, seat, command, events) along a random legal game, ending with the final state."""
    state, events = GAME.start(seats, options, seed)
    picker = Rng(seed.ljust(32, b"\1")[:32])
    while GAME.outcome(state) is None:
        seat = next(iter(GAME.to_act(state)))
        command = random_bot(state, seat, picker)
        new = GAME.decide(state, seat, command, rng_for(seed, len(events) + 1))
        yield state, seat, command, new
        state = GAME.fold(new, state)
        events.extend(new)
    yield state, -1, None, events


@settings(max_examples=60, deadline=None)
@given(SEEDS, SETUPS)
def test_random_games_finish_conserve_goods_and_shares_and_replay(seed, setup):
    seats, options = setup
    each = data.SHARES_ON_EXCHANGE[seats]
    final: Any = None
    for state, _, _, events in _walk(seats, options, seed):
        assert goods_total(state) == data.GOOD_CUBES
        assert shares_total(state) == (each,) * state.companies
        assert all(0 <= p.pledged <= data.START_SHARES for p in state.players)
        assert all(v >= 0 for v in (*state.supply, *state.far_east, *state.europe))
        assert all(p.treasury >= 0 for p in state.players)
        final = (state, events)
    state, events = final
    assert GAME.outcome(state) is not None and state.epoch == data.EPOCHS
    replayed = GAME.fold(events)
    assert msgspec.msgpack.encode(replayed) == msgspec.msgpack.encode(state)


def _other_card(state, market, card):
    others = [c for c in deck(state, market) if c != card]
    return others[0] if others else card


def _scramble(state, seat):
    """The same table with different secrets that ``seat`` may not see: unrevealed cards (unless the
    seat has an envoy on that Influence space) and which of another seated player's unseen ships (face
    down, or in hand in phase C) lies where: they swap places in turn (the neutral's ships are public)."""
    occupants = state.occupants or ((),) * len(data.SPACE_IDS)
    fe_space, eu_space = data.SPACE_IDS.index("GOV_INFLUENCE_FE"), data.SPACE_IDS.index("INV_INFLUENCE_EU")
    if state.fe_card and not state.fe_revealed and seat not in occupants[fe_space]:
        state = replace(state, fe_card=_other_card(state, "far_east", state.fe_card))
    if state.eu_card and not state.eu_revealed and seat not in occupants[eu_space]:
        state = replace(state, eu_card=_other_card(state, "europe", state.eu_card))
    players = list(state.players)
    zones = state.zones
    for p, player in enumerate(players[: state.seats]):
        if p == seat:
            continue
        ships = list(player.ships)
        unseen = [i for i, s in enumerate(ships) if s.face_down or (state.phase == "C" and s.zone == 0)]
        moved = {}
        for k, i in enumerate(unseen):
            place = player.ships[unseen[(k + 1) % len(unseen)]]
            moved[place.id] = ships[i].id
            ships[i] = replace(ships[i], zone=place.zone, face_down=place.face_down, cargo=place.cargo)
        zones = tuple(tuple(moved.get(i, i) for i in z) for z in zones)
        players[p] = replace(player, ships=tuple(ships))
    return replace(state, players=tuple(players), zones=zones)


@settings(max_examples=30, deadline=None)
@given(SEEDS, SETUPS)
def test_views_and_redacted_events_never_show_anothers_secrets(seed, setup):
    seats, options = setup
    enc = msgspec.json.encode
    for state, _, _, events in _walk(seats, options, seed):
        for seat in (None, *range(seats)):
            other = _scramble(state, seat)
            assert enc(GAME.view(state, seat)) == enc(GAME.view(other, seat))
        for event in events:
            seen = GAME.redact(event, None)
            if isinstance(event, ev.ShipSent) and event.player < seats:
                assert seen.ship is None
                for seat in range(seats):
                    assert (GAME.redact(event, seat).ship is None) == (seat != event.player)
            if isinstance(event, ev.ShipSent) and event.player >= seats:
                assert seen.ship == event.ship  # the neutral sends its leftmost ship: public
            if isinstance(event, ev.MarketCardChosen):
                assert seen.card is None
            if isinstance(event, ev.MarketCardsDrawn):
                assert seen.fe_card is None and seen.eu_card is None


def _mutations(command):
    """Commands near ``command`` that may or may not be legal."""
    if isinstance(command, cmd.PlaceEnvoy):
        return [replace(command, space=s) for s in (*data.SPACE_IDS, "nowhere")] + [replace(command, envoy=3)]
    if isinstance(command, cmd.LoadShip | cmd.SellFromWarehouse):
        return [
            replace(command, goods=tuple(n + (i == g) for i, n in enumerate(command.goods))) for g in range(4)
        ]
    if isinstance(command, cmd.SendShip):
        return [replace(command, zone=z) for z in (0, 1, 2, 3, 4)] + [replace(command, ship="9:G1")]
    if isinstance(command, cmd.BuyShare):
        return [cmd.BuyShare(company=c) for c in range(-1, 6)]
    if isinstance(command, cmd.SellShares):
        return [replace(command, count=command.count + 1), replace(command, company=7)]
    if isinstance(command, cmd.UnloadShip):
        return [replace(command, store=(9, 0, 0, 0)), replace(command, ship="0:SH8")]
    if isinstance(command, cmd.ChooseMarketCard):
        return [cmd.ChooseMarketCard(card=c) for c in (*data.EUROPE_CARDS, *data.FAR_EAST_CARDS)]
    return [cmd.Pass(), cmd.RedeemStartShare(), cmd.PledgeStartShare(), cmd.LeaveShipInFarEast()]


@settings(max_examples=25, deadline=None)
@given(SEEDS, SETUPS)
def test_legal_commands_and_decide_agree_both_ways(seed, setup):
    seats, options = setup
    picker = Rng(seed.ljust(32, b"\2")[:32])
    for state, seat, command, _ in _walk(seats, options, seed):
        if seat < 0:
            for s in range(seats):
                assert GAME.legal_commands(state, s) == []
            break
        legal = GAME.legal_commands(state, seat)
        rng = rng_for(seed, 7)
        for offered in picker.sample(legal, min(3, len(legal))):
            GAME.decide(state, seat, offered, rng)  # accepted
        for other in range(seats):
            if other != seat:
                # Out of one's action only a pledge is open (pledging rule: "jederzeit").
                others = GAME.legal_commands(state, other)
                assert all(isinstance(c, cmd.PledgeStartShare) for c in others)
                assert bool(others) == (
                    options.get("pledging", False) and state.players[other].pledged < data.START_SHARES
                )
                for offered in others:
                    after = GAME.fold(GAME.decide(state, other, offered, rng), state)
                    assert GAME.to_act(after) == GAME.to_act(state) and after.actor == state.actor
                try:
                    GAME.decide(state, other, command, rng)
                    assert command in others, "another seat's command was accepted"
                except RuleViolation:
                    assert command not in others
        for mutated in _mutations(command):
            if mutated in legal:
                continue
            try:
                GAME.decide(state, seat, mutated, rng)
                raise AssertionError(f"{mutated} is not offered but was accepted")
            except RuleViolation:
                pass
