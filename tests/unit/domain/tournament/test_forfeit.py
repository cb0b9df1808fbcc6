"""The forfeit rule: never-timed-out seats rank above forfeited ones; a forfeited seat never wins."""

from __future__ import annotations

from domain.tournament.forfeit import forfeit_result


def test_nobody_forfeited_leaves_the_result_as_the_game_gave_it() -> None:
    assert forfeit_result((7, 3, 5), (30, 20, 10), {7}, ()) == ((7, 3, 5), (30, 20, 10), (7,))


def test_a_forfeited_winner_drops_below_the_others_and_the_next_seat_wins() -> None:
    ranking, scores, winners = forfeit_result((7, 3, 5, 1), (40, 30, 20, 10), {7}, {7, 5})
    assert ranking == (3, 1, 7, 5)  # the game's order within each group
    assert scores == (30, 10, 40, 20)  # each score stays with its player
    assert winners == (3,)


def test_shared_first_place_keeps_the_winners_who_were_not_forfeited() -> None:
    assert forfeit_result((2, 4, 6), (9, 9, 1), {2, 4}, {2})[2] == (4,)


def test_all_forfeited_keeps_the_game_order_and_nobody_wins() -> None:
    assert forfeit_result((2, 4), (9, 1), {2}, {2, 4}) == ((2, 4), (9, 1), ())
