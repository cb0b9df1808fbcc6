"""The 2-player game: the neutral player and its envoy cards, destination cards and policies."""

from __future__ import annotations

from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import events as ev
from domain.eic.commands import PlaceEnvoy
from domain.eic.rules.envoys import neutral_envoys
from domain.eic.rules.epoch_end import end_epoch
from domain.eic.rules.loading import neutral_loads
from domain.eic.rules.navigation import neutral_sends
from domain.eic.rules.selling import neutral_unloads
from domain.engine import Rng

from .helpers import act, occupy, player, run, ship, start

N = 2


def _rng(tag: bytes) -> Rng:
    return Rng(tag.ljust(32, b"\0"))


def test_neutral_draws_an_envoy_card_applies_it_and_rewards_players_from_the_supply():
    state = start(2)
    state = occupy(state, "SHP_SHIP", 0)
    state = occupy(state, "INV_SHIP", 1)
    state = occupy(state, "CAP_EXPERTISE", 0)
    seen = set()
    for i in range(40):
        placed = neutral_envoys(state, _rng(bytes([i])))
        effects, spaces = data.NEUTRAL_ENVOY_CARDS[placed.card]
        assert placed.spaces == spaces
        expected = tuple(q for s in spaces for q in state.occupants[data.SPACE_IDS.index(s)])
        assert placed.rewarded == expected
        if "ship_fastest" in effects and not placed.ship:
            raise AssertionError("the fastest ship of epoch 1 is free to take")
        seen.add(placed.card)
    assert len(seen) == 6
    placed = next(
        neutral_envoys(state, _rng(bytes([i])))
        for i in range(40)
        if neutral_envoys(state, _rng(bytes([i]))).card == "NE-1"
    )
    after = GAME.evolve(state, placed)
    assert after.players[0].treasury == state.players[0].treasury + 2  # SHP_SHIP and CAP_EXPERTISE
    # the Galleons are equally old and equally fast: the leftmost goes, the fastest takes its dock
    assert [s.kind for s in after.players[N].ships] == ["SH1", "G2"]
    assert after.neutral_done


def test_players_joining_the_neutral_pay_1_to_the_supply():
    state = start(2)
    seat = state.actor
    state = occupy(state, "MER_TRADE_SILK", N)
    after, events = act(state, seat, PlaceEnvoy(envoy=0, space="MER_TRADE_SILK"))
    assert events[0].paid == (N,)
    assert after.players[seat].treasury == state.players[seat].treasury - 1
    assert after.players[N].treasury == 0


def test_neutral_acts_once_in_phase_a_at_its_initiative_slot():
    state = start(2)
    kinds = []
    while state.phase == "A":
        seat = state.actor
        command = next(
            c
            for c in GAME.legal_commands(state, seat)
            if isinstance(c, PlaceEnvoy) and c.space.startswith("MER")
        )
        state, events = act(state, seat, command)
        kinds += [type(e).__name__ for e in events]
    assert kinds.count("NeutralEnvoysPlaced") == 1
    assert state.players[N].envoys == ("any", "any", "any")  # its envoys are not its own placements
    assert sum(N in o for o in state.occupants) == 3


def test_neutral_first_on_influence_draws_at_random_later_envoys_look():
    state = start(2)
    later = state.initiative[0]
    state = occupy(state, "GOV_INFLUENCE_FE", N, later)
    state, events = run(replace(state, phase="C", cursor=-1))
    drawn = next(e for e in events if isinstance(e, ev.MarketCardsDrawn))
    assert drawn.fe_viewers == (later,)
    assert GAME.view(state, later).fe_card == state.fe_card is not None
    assert GAME.view(state, 1 - later).fe_card is None and GAME.view(state, None).fe_card is None
    assert GAME.redact(drawn, 1 - later).fe_card is None


def test_neutral_destination_cards_and_trading_post_cards():
    state = replace(start(2), phase="C", epoch=1)
    for i in range(30):
        sent = neutral_sends(state, _rng(bytes([i])))
        zones = data.NEUTRAL_DESTINATION_CARDS[sent.destination]
        assert sent.zone == zones[0]  # no post: the first listed zone
        assert sent.ship == f"{N}:G1"  # the leftmost ship
    posted = player(state, N, posts=("Batavia",))
    for i in range(30):
        sent = neutral_sends(posted, _rng(bytes([i])))
        if len(data.NEUTRAL_DESTINATION_CARDS[sent.destination]) > 1:
            assert sent.zone == 2
    used = replace(state, destinations_drawn=tuple(f"ND-{k}" for k in range(1, 9)))
    assert neutral_sends(used, _rng(b"x")).destination == "ND-9"


def test_destination_cards_reshuffled_after_phase_c():
    state = replace(start(2), destinations_drawn=("ND-1", "ND-2"))
    after = GAME.evolve(state, ev.PhaseBegan(phase="D"))
    assert after.destinations_drawn == ()


def test_neutral_loads_primary_good_then_tea_for_free():
    state = start(2)
    state = player(state, N, ships=(ship(N, "SH2", zone=1),))
    state = replace(state, phase="D", zone=1, queue=(f"{N}:SH2",), far_east=(4, 0, 0, 2))
    loaded = neutral_loads(state)
    assert loaded.goods == (3, 0, 0, 2) and loaded.cost == 0


def test_neutral_sells_everything_and_stores_only_what_a_full_market_refuses():
    state = start(2)
    state = player(state, N, extensions=1, ships=(ship(N, "SH2", (2, 0, 0, 3)),))
    state = replace(state, phase="U", europe=(0, 0, 0, 4))  # one silk space left (5 on the 2-3 side)
    sold = neutral_unloads(state)
    assert sold.stored == (0, 0, 0, 2) and sold.sold == (2, 0, 0, 1)
    open_market = replace(state, europe=(0, 0, 0, 0))
    assert neutral_unloads(open_market).stored == (0, 0, 0, 0)


def test_neutral_dividends_from_the_supply_and_its_income_to_the_supply():
    state = replace(start(2), stock=(0, 0, 10))
    state = player(state, 0, shares=(0, 0, 2))
    state = player(state, N, income=25)
    changed, ended = end_epoch(state)
    assert (
        ev.Payment(payer=-1, payee=0, amount=2 * data.DIVIDENDS[ended_stock(state, ended)]) in ended.dividends
    )
    after = GAME.evolve(GAME.evolve(state, changed), ended)
    assert after.players[N].treasury == 0  # income went to the supply
    assert after.players[0].treasury > state.players[0].treasury


def ended_stock(state, ended):
    from domain.eic.board import clamp_stock

    return clamp_stock(clamp_stock(state.stock[N] + ended.rank_moves[N]) + ended.growth[N])


def test_neutral_counts_in_income_ranks_with_three_ranks():
    state = replace(start(2), initiative=(0, 1, 2))
    state = player(player(state, N, income=50), 0, income=10)
    _, ended = end_epoch(state)
    assert ended.ranking == (N, 0, 1) and ended.rank_moves == (1, 0, 2)


def test_neutral_wealth_not_counted_but_its_shares_are():
    state = replace(start(2), stock=(0, 0, 10), phase="epoch_over", epoch=5)
    state = player(state, 0, shares=(0, 0, 1))
    state = player(state, N, treasury=500)
    over, _ = run(state)
    outcome = GAME.outcome(over)
    assert outcome is not None and len(outcome.scores) == 2 and set(outcome.ranking) == {0, 1}
    assert outcome.scores[0] == 2 * 4 + data.STOCK_VALUES[10] + state.players[0].treasury


def test_neutral_ship_returns_to_the_first_free_dock_from_the_left():
    state = start(2)
    state = player(state, N, ships=(ship(N, "G1", zone=3), ship(N, "G2", zone=1)))
    state = replace(state, phase="D", zone=1, queue=(f"{N}:G2",), far_east=(4, 0, 0, 2))
    after = GAME.evolve(state, neutral_loads(state))
    assert [s.id for s in after.players[N].ships] == [f"{N}:G2", f"{N}:G1"]  # G2 now leftmost


def _neutral_gets(state, card):
    """The neutral draws ``card`` (the others are used) and applies it."""
    others = tuple(c for c in data.NEUTRAL_ENVOY_CARDS if c != card)
    state = replace(state, used_neutral_envoy_cards=others)
    placed = neutral_envoys(state, _rng(b"oldest"))
    assert placed.card == card
    return GAME.evolve(state, placed), placed


def test_no_free_dock_the_neutral_discards_its_oldest_ship_and_the_new_one_takes_its_dock():
    """ "Das neue Schiff legt ihr an die erste freie Anlegestelle im Hafen des neutralen Spielers. Ist
    keine Anlegestelle frei, legt ihr das älteste Schiff ab (das schnellste Schiff oder das mit der
    größten Tonnage, abhängig davon, ob der neutrale Spieler ein schnelles Schiff oder ein Schiff mit
    großer Tonnage bekommt)." Ships re-dock in loading order, so the oldest is not always leftmost."""
    state = replace(start(2), epoch=3)
    sh1, sh3 = ship(N, "SH1", gained=1), ship(N, "SH3", gained=2)
    used = ("G1", "G2", "SH1", "SH3")
    # the oldest (SH1, epoch 1) lies right: the fast SH5 of epoch 3 takes its dock, SH3 stays leftmost
    right = player(state, N, ships=(sh3, sh1), used_tiles=used)
    after, placed = _neutral_gets(right, "NE-1")
    assert placed.ship == "SH5" and placed.discard == f"{N}:SH1"
    assert [s.kind for s in after.players[N].ships] == ["SH3", "SH5"]
    assert after.players[N].ships[1].gained == 3
    # the oldest lies left: the new ship is then the leftmost, and sails first in phase C
    left = player(state, N, ships=(sh1, sh3), used_tiles=used)
    after, placed = _neutral_gets(left, "NE-1")
    assert [s.kind for s in after.players[N].ships] == ["SH5", "SH3"]
    sailing = replace(after, phase="C", cards_drawn=True)
    assert neutral_sends(sailing, _rng(b"sail")).ship == f"{N}:SH5"


def test_among_equally_old_ships_the_neutral_discards_the_fastest_or_the_largest():
    """Reading of "(das schnellste Schiff oder das mit der größten Tonnage …)": it breaks a tie of age:
    a new fast ship replaces the fastest of the oldest, a new large ship the largest of them."""
    state = replace(start(2), epoch=2)
    harbour = (ship(N, "SH2", gained=1), ship(N, "SH1", gained=1))  # SH2: speed 1, 5 t; SH1: speed 2, 3 t
    state = player(state, N, ships=harbour, used_tiles=("G1", "G2", "SH1", "SH2"))
    fast, placed = _neutral_gets(state, "NE-1")
    assert placed.ship == "SH3" and placed.discard == f"{N}:SH1"
    assert [s.kind for s in fast.players[N].ships] == ["SH2", "SH3"]
    large, placed = _neutral_gets(state, "NE-2")
    assert placed.ship == "SH4" and placed.discard == f"{N}:SH2"
    assert [s.kind for s in large.players[N].ships] == ["SH4", "SH1"]


def test_a_free_dock_is_taken_first_and_no_ship_is_discarded():
    """ "Das neue Schiff legt ihr an die erste freie Anlegestelle im Hafen des neutralen Spielers." """
    state = player(replace(start(2), epoch=2), N, extensions=1)
    after, placed = _neutral_gets(state, "NE-2")
    assert placed.ship == "SH4" and placed.discard == ""
    assert [s.kind for s in after.players[N].ships] == ["G1", "G2", "SH4"]


def _epoch_5_begins(state):
    began = ev.EpochBegan(epoch=5, fe_dice=(1, 1, 1, 1), eu_dice=(1, 1, 1, 1))
    return GAME.evolve(replace(state, epoch=4, phase="epoch_over"), began)


def test_epoch_5_docks_are_places_the_galleons_leave_gaps_and_the_new_ship_takes_the_first():
    """„Zu Beginn von Epoche 5 legt ihr alle Galeonen ab.“ and „Das neue Schiff legt ihr an die erste freie
    Anlegestelle im Hafen des neutralen Spielers.“ Docks are places: the ships left stay where they are,
    and the new ship takes the first free dock: G1 | SH3 | G2 becomes SH7 | SH3, so SH7 sails first."""
    harbour = (ship(N, "G1"), ship(N, "SH3", gained=2), ship(N, "G2"))
    state = player(start(2), N, ships=harbour, extensions=1, used_tiles=("G1", "G2", "SH3"))
    began = _epoch_5_begins(state)
    assert [s.kind for s in began.players[N].ships] == ["SH3"] and began.players[N].free_docks == (0,)
    after, placed = _neutral_gets(began, "NE-1")
    assert placed.ship == "SH7" and placed.discard == ""
    assert [s.kind for s in after.players[N].ships] == ["SH7", "SH3"] and after.players[N].free_docks == ()
    sailing = replace(after, phase="C", cards_drawn=True)
    assert neutral_sends(sailing, _rng(b"sail")).ship == f"{N}:SH7"
    # Rules 1 (games started before issue 32) closed the gap: SH3 | SH7, and SH3 sailed first.
    old = _epoch_5_begins(replace(state, rules=1))
    assert old.players[N].free_docks == ()
    after, _ = _neutral_gets(old, "NE-1")
    assert [s.kind for s in after.players[N].ships] == ["SH3", "SH7"]


def test_epoch_5_a_player_buying_a_ship_also_takes_the_first_free_dock():
    harbour = (ship(0, "G1"), ship(0, "G2"), ship(0, "SH4", gained=3))
    state = player(start(2), 0, ships=harbour, extensions=1, used_tiles=("G1", "G2", "SH4"))
    began = _epoch_5_begins(state)
    assert [s.kind for s in began.players[0].ships] == ["SH4"] and began.players[0].free_docks == (0, 1)
    bought = GAME.evolve(began, ev.EnvoyPlaced(player=0, envoy=0, space="SHP_SHIP", cost=0, ship="SH7"))
    assert [s.kind for s in bought.players[0].ships] == ["SH7", "SH4"]
    assert bought.players[0].free_docks == (1,)
    sailed = GAME.evolve(bought, ev.PhaseBegan(phase="C"))
    assert sailed.players[0].free_docks == ()  # every ship leaves its dock in phase C
