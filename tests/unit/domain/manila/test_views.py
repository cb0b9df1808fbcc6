"""Hidden information: a seat sees its own shares, others and spectators see counts; the deal and the
goods of pledged shares are redacted; the end-of-game event reveals everything."""

from __future__ import annotations

from domain.engine import Rng, play_out
from domain.manila import GAME
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.bots import random_bot

from .helpers import act, start


def test_view_own_shares_visible_others_only_counts():
    state = start()
    mine = GAME.view(state, 1)
    assert mine.players[1].shares == state.players[1].shares
    assert mine.players[0].shares is None and mine.players[0].share_count == 2
    spectator = GAME.view(state, None)
    assert all(p.shares is None and p.mortgaged is None and p.share_count == 2 for p in spectator.players)


def test_redact_hides_which_shares_were_dealt_to_whom():
    dealt = GAME.setup(4, {}, b"hidden")[1]
    assert isinstance(dealt, ev.SharesDealt)
    assert GAME.redact(dealt, None).hands == (None,) * 4
    mine = GAME.redact(dealt, 2).hands
    assert mine[2] == dealt.hands[2] and mine[0] is None and mine[1] is None and mine[3] is None


def test_redact_hides_the_good_of_a_pledged_share_from_others():
    state = start()
    good = state.players[0].shares[0]
    _, events = act(state, 0, cmd.TakeLoan(good=good))
    assert GAME.redact(events[0], 1).good is None and GAME.redact(events[0], None).good is None
    assert GAME.redact(events[0], 0).good == good
    assert GAME.view(GAME.fold(events, state), 1).players[0].mortgaged_count == 1


def test_game_end_reveals_every_hand():
    played = play_out(GAME, 3, {}, b"reveal", [random_bot] * 3)
    end = played.events[-1]
    assert isinstance(end, ev.GameEnded) and GAME.redact(end, None) == end
    assert end.hands == tuple(p.shares for p in played.state.players)
    spectator = GAME.view(played.state, None)
    assert all(v.shares == p.shares for v, p in zip(spectator.players, played.state.players, strict=True))


def _folded_by(viewer: int | None, events: list[ev.ManilaEvent]):
    """What ``viewer`` arrives at by folding only the redacted events it received."""
    state = None
    for event in events:
        redacted = GAME.redact(event, viewer)
        if redacted is not None:
            state = GAME.evolve(state, redacted)
    return state


def test_a_pledge_others_cannot_name_still_pays_the_borrower_12_in_their_fold():
    """S0 "Kredit aufnehmen": the share lies face down, but the 12 pesos are paid out in front of everyone."""
    events = GAME.setup(4, {}, b"pledge")
    state = GAME.fold(events)
    good = state.players[0].shares[0]
    pledge = GAME.decide(state, 0, cmd.TakeLoan(good=good), Rng(b"\x07" * 32))
    state = GAME.fold(pledge, state)
    for viewer in (None, 1, 2, 3):
        folded = _folded_by(viewer, [*events, *pledge])
        assert GAME.redact(pledge[0], viewer).good is None
        assert folded.players[0].cash == 42 and GAME.view(folded, viewer) == GAME.view(state, viewer)
    repay = GAME.decide(state, 0, cmd.RepayLoan(good=good), Rng(b"\x07" * 32))
    after = GAME.fold(repay, state)
    folded = _folded_by(None, [*events, *pledge, *repay])
    assert folded.players[0].cash == 27 and GAME.view(folded, None) == GAME.view(after, None)


def test_a_viewers_fold_of_a_whole_game_learns_every_hand_at_the_end():
    played = play_out(GAME, 3, {}, b"reveal", [random_bot] * 3)
    for viewer in (None, 0, 1, 2):
        folded = _folded_by(viewer, played.events)
        assert folded.players == played.state.players
