"""Phase F, "Ende der Epoche", the next epoch's preparation, epoch 5 and the final scoring."""

from __future__ import annotations

from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import events as ev
from domain.eic.rules.epoch_end import end_epoch, final_scoring, growth_steps, wealth

from .helpers import occupy, player, run, ship, start


def _incomes(state, incomes, markers=None):
    for p, income in enumerate(incomes):
        state = player(state, p, income=income, income_marker=(markers or [0] * len(incomes))[p])
    return state


def _ended(state):
    changed, ended = end_epoch(state)
    assert isinstance(changed, ev.InitiativeChanged) and isinstance(ended, ev.EpochEnded)
    return changed, ended


def test_share_values_move_2_1_0_minus_1_by_income_rank_with_four():
    state = replace(start(4), initiative=(0, 1, 2, 3), stock=(5, 5, 5, 5))
    state = _incomes(state, [5, 9, 8, 7])
    _, ended = _ended(state)
    assert ended.ranking == (1, 2, 3, 0)
    assert ended.rank_moves == (-1, 2, 1, 0)


def test_income_ties_go_to_the_higher_initiative():
    state = replace(start(4), initiative=(3, 2, 1, 0))
    state = _incomes(state, [7, 7, 7, 7])
    _, ended = _ended(state)
    assert ended.ranking == (3, 2, 1, 0)


def test_three_players_no_minus_one():
    state = replace(start(3), initiative=(0, 1, 2))
    _, ended = _ended(_incomes(state, [1, 2, 3]))
    assert ended.rank_moves == (0, 1, 2)


def test_new_initiative_is_the_reverse_of_the_ranking():
    state = replace(start(4), initiative=(0, 1, 2, 3))
    changed, _ = _ended(_incomes(state, [5, 9, 8, 7]))
    assert changed.initiative == (0, 3, 2, 1)


def test_example_income_43_moving_two_steps():
    """Blue on 20+ earns 43 GS: income marker and share marker both move two fields."""
    assert growth_steps(2, 43) == (4, 2)
    state = replace(start(3), initiative=(0, 1, 2), stock=(3, 3, 3))
    state = _incomes(state, [43, 0, 0], markers=[2, 0, 0])
    _, ended = _ended(state)
    assert ended.income_markers[0] == 4 and ended.growth[0] == 2
    after = GAME.evolve(state, ended)
    assert after.stock[0] == 3 + 2 + 2  # first in income (+2) and growth (+2)
    assert after.players[0].income_marker == 4


def test_growth_can_move_back():
    assert growth_steps(5, 12) == (1, -4)


def test_example_dividends():
    """Each owner pays every other holder the dividend on the track times their shares."""
    state = replace(start(3), initiative=(0, 1, 2), stock=(10, 0, 0))
    state = _incomes(state, [5, 30, 20])  # company 0 third: no move, no growth
    state = player(state, 1, shares=(2, 0, 0))
    state = player(state, 2, shares=(1, 0, 0))
    _, ended = _ended(state)
    per_share = data.DIVIDENDS[10]
    assert per_share == 2
    assert ended.dividends == (ev.Payment(payer=0, payee=2, amount=2), ev.Payment(payer=0, payee=1, amount=4))
    after = GAME.evolve(state, ended)
    assert after.players[0].treasury == state.players[0].treasury + 5 - 6
    assert after.players[1].treasury == state.players[1].treasury + 30 + 4


def test_owner_short_of_money_pays_what_the_treasury_holds():
    state = replace(start(3), initiative=(0, 1, 2), stock=(10, 0, 0))
    state = player(_incomes(state, [1, 30, 20]), 0, treasury=2)
    state = player(state, 1, shares=(3, 0, 0))
    _, ended = _ended(state)
    assert ended.dividends == (ev.Payment(payer=0, payee=1, amount=3),)


def test_next_epoch_envoys_to_their_portraits_cards_out():
    state = replace(start(4), fe_card="FE-I-2", eu_card="EU-I-5")
    seat = 0
    state = player(state, seat, envoys=("S:SHP_SHIP", "S:MER_TRADE_SILK", "R:any"))
    state = occupy(occupy(state, "SHP_SHIP", seat), "MER_TRADE_SILK", seat)
    state, _ = run(replace(state, phase="F"))
    assert state.epoch == 2 and state.phase == "A"
    assert state.players[seat].envoys == ("P:Shipowner", "P:Merchant", "any")
    assert all(o == () for o in state.occupants)
    assert {"FE-I-2", "EU-I-5"} <= set(state.used_cards)


def test_epoch_five_discards_galleons_at_its_start():
    state = replace(start(4), epoch=4, phase="epoch_over")
    state = player(state, 0, ships=(ship(0, "G1"), ship(0, "SH3")))
    state, _ = run(state)
    assert state.epoch == 5
    assert [s.kind for s in state.players[0].ships] == ["SH3"]
    assert all(s.kind not in data.GALLEONS for p in state.players for s in p.ships)


def test_final_scoring_start_shares_not_pledged_all_shares_treasury():
    state = replace(start(4), stock=(10, 5, 0, 0), initiative=(0, 1, 2, 3))
    state = player(state, 0, treasury=7, pledged=1, shares=(0, 2, 0, 0))
    assert wealth(state, 0) == 1 * 14 + 2 * 9 + 7


def test_final_tie_breaks_company_value_then_initiative():
    state = replace(start(4), stock=(0, 3, 0, 0), initiative=(3, 2, 1, 0))
    state = player(state, 0, treasury=20)  # 2 x 4 + 20 = 28
    state = player(state, 1, treasury=14)  # 2 x 7 + 14 = 28, with the dearer company
    ended = final_scoring(state)
    assert ended.scores[0] == ended.scores[1] == 28
    assert ended.ranking.index(1) < ended.ranking.index(0)
    assert "seat 1 before seat 0 on company value" in ended.tie_break
    same = player(replace(state, stock=(0, 0, 0, 0)), 1, treasury=20)
    ended = final_scoring(same)
    assert ended.scores[0] == ended.scores[1] == 28
    assert ended.ranking.index(1) < ended.ranking.index(0)  # initiative (3, 2, 1, 0): seat 1 first
    assert "seat 1 before seat 0 on initiative" in ended.tie_break


def test_treasury_breaks_a_tie_of_wealth_and_company_value():
    state = replace(start(4), stock=(0, 0, 0, 0), initiative=(3, 2, 1, 0))
    state = player(state, 0, treasury=20, shares=(0, 0, 0, 0))
    state = player(state, 1, treasury=16, shares=(1, 0, 0, 0))  # 16 + 4 for one share of company 0
    ended = final_scoring(state)
    assert ended.scores[0] == ended.scores[1]
    assert ended.ranking.index(0) < ended.ranking.index(1)
    assert "treasury" in ended.tie_break


def test_game_ends_after_epoch_five_and_refuses_commands():
    state, _ = run(replace(start(4), epoch=5, phase="epoch_over"))
    assert state.phase == "over" and GAME.to_act(state) == frozenset()
    outcome = GAME.outcome(state)
    assert outcome is not None and len(outcome.ranking) == 4 and outcome.winners == (outcome.ranking[0],)
