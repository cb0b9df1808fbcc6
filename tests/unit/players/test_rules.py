"""The pure rules of players: names, passwords, chat text and reach, sign-in windows, rating order."""

from __future__ import annotations

import pytest

from domain.engine import RuleViolation
from domain.players.rules import (
    chat_reaches,
    checked_author,
    checked_chat,
    checked_name,
    checked_password,
    may_post,
)
from domain.players.throttle import Window


@pytest.mark.parametrize("name", ["ab", "Ann_1", "x.y-z", "a" * 24])
def test_names_that_are_taken(name: str) -> None:
    assert checked_name(name) == name


@pytest.mark.parametrize("name", ["a", "_ann", "a" * 25, "ann smith", "ann/..", "änn", ""])
def test_names_that_are_refused(name: str) -> None:
    with pytest.raises(RuleViolation, match="a name is 2 to 24"):
        checked_name(name)


def test_passwords_are_refused_short_huge_or_the_name() -> None:
    assert checked_password("eight ch", "ann") == "eight ch"
    for bad in ("short", "x" * 257, "AnnAnnAnn"):
        with pytest.raises(RuleViolation):
            checked_password(bad, "annannann")


def test_chat_text_is_cleaned_and_bounded() -> None:
    assert checked_chat("  hi\x07 there\n ", "players") == "hi there"
    for text, code in (("\x00 \x1b", "empty_chat"), ("x" * 301, "chat_too_long")):
        with pytest.raises(RuleViolation) as refused:
            checked_chat(text, "players")
        assert refused.value.code == code
    with pytest.raises(RuleViolation):
        checked_chat("hi", "everyone")


def test_a_muted_author_is_named_as_shown_printable_and_bounded() -> None:
    for shown in ("Ann", "greedy bot", "Zoë 2", "x" * 64):
        assert checked_author(shown) == shown
    for bad in ("", "x" * 65, "tab\there", "\u200bzero width"):
        with pytest.raises(RuleViolation) as refused:
            checked_author(bad)
        assert refused.value.code == "bad_author"


def test_spectators_chat_of_a_live_tournament_game_reaches_nobody_until_it_ends() -> None:
    assert not chat_reaches("spectators", tournament=True, finished=False)  # not even an anonymous reader
    assert chat_reaches("spectators", tournament=True, finished=True)
    assert chat_reaches("spectators", tournament=False, finished=False)
    assert chat_reaches("players", tournament=True, finished=False)
    assert may_post("players", is_player=True) and not may_post("players", is_player=False)
    assert may_post("spectators", is_player=False) and not may_post("spectators", is_player=True)


def test_a_window_says_how_long_to_wait() -> None:
    window = Window(3, 60.0)
    assert window.wait([], 100.0) == 0.0
    assert window.wait([10.0, 50.0, 60.0], 100.0) == 0.0  # 10.0 left the window at 70.0
    assert window.wait([50.0, 60.0, 90.0], 100.0) == pytest.approx(10.0)
    assert window.wait([50.0, 60.0, 90.0, 95.0], 100.0) == pytest.approx(20.0)
    with pytest.raises(ValueError):
        Window(0, 1.0)
