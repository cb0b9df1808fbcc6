"""Taking back one's moves of the turn (issue 44, ``domain/take_back.py``), for the three games.

Random games with random take-backs finish and refold byte for byte; a take-back returns the game to the very
state before the run began; nobody but the run's seat may take back, and nobody once another seat acted or
something was revealed; games started under the rules before take-backs never get them; and every command
that drew randomness produced an event that closes the window (else a take-back would let a seat re-roll).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain import GAMES, Game, RuleViolation
from domain.engine import Rng, rng_for
from domain.take_back import MovesBegan, MovesTakenBack, TakeBack, may_take_back

KEYS = ("elcapitan", "manila", "eic")
SEATS = {"elcapitan": 3, "manila": 3, "eic": 2}
BEFORE = {"elcapitan": 4, "manila": 1, "eic": 2}
"""The last rules version of each game without take-backs."""


def _bytes(value: Any) -> bytes:
    return msgspec.msgpack.encode(value)


class _Drawn(Rng):
    """A command's generator that tells whether the command drew from it."""

    __slots__ = ("drew",)

    def __init__(self, material: bytes) -> None:
        super().__init__(material=material)
        self.drew = False

    def _take(self, n: int) -> bytes:
        self.drew = True
        return super()._take(n)


def _play(game: Game[Any, Any, Any, Any], seats: int, seed: bytes, undo_every: int, cap: int = 60_000) -> Any:
    """A random game in which a seat that may take back does so about once in ``undo_every`` chances (at
    most once per run, so the game moves on). Checks each take-back's identity and each draw's window."""
    state, events = game.start(seats, {}, seed)
    pick = Rng(hashlib.sha256(b"take-back-test" + seed).digest())
    base: dict[int, bytes] = {}  # the state before each open run's MovesBegan, by seat
    taken_in_run: set[int] = set()
    undone = 0
    for _ in range(cap):
        if game.outcome(state) is not None:
            return state, events, undone
        seat = pick.choice(sorted(game.to_act(state)))
        mover = next((s for s in range(seats) if may_take_back(state, s)), None)
        if mover is not None and mover not in taken_in_run and pick.randint(1, undo_every) == 1:
            new = game.decide(state, mover, TakeBack(), rng_for(seed, len(events) + 1))
            assert new == [MovesTakenBack(seat=mover)]
            state = game.fold(new, state)
            assert _bytes(state) == base[mover], "a take-back returns to the state before the run"
            taken_in_run.add(mover)
            undone += 1
        else:
            rng = _Drawn(b"harbormaster/rng/v1\x00" + seed + (len(events) + 1).to_bytes(8, "big"))
            new = game.decide(state, seat, pick.choice(game.legal_commands(state, seat)), rng)
            if new and isinstance(new[0], MovesBegan):
                base[new[0].seat] = _bytes(replace(state, undo=None))  # another seat's window closes
                taken_in_run.discard(new[0].seat)
            state = game.fold(new, state)
            if rng.drew:  # chance came out: no window may survive it, or a take-back would re-roll
                assert state.undo is None, [type(e).__name__ for e in new]
        events.extend(new)
    raise AssertionError(f"{game.key}: no outcome after {cap} commands")


@pytest.mark.parametrize("key", KEYS)
def test_random_games_with_random_take_backs_finish_and_refold_byte_for_byte(key: str) -> None:
    game = GAMES[key]
    for n in range(2):
        seed = f"take-back-{key}-{n}".encode()
        state, events, undone = _play(game, SEATS[key], seed, undo_every=3)
        assert undone > 5 and game.outcome(state) is not None
        assert _bytes(game.fold(events)) == _bytes(state)
        assert any(isinstance(e, MovesTakenBack) for e in events)
        decoder = msgspec.json.Decoder(game.Event)
        assert [decoder.decode(msgspec.json.encode(e)) for e in events] == events
        mid = game.fold(events[: len(events) // 2])  # a snapshot keeps the window
        assert msgspec.msgpack.decode(_bytes(mid), type=game.State) == mid


@pytest.mark.parametrize("key", KEYS)
def test_a_game_started_before_take_backs_has_no_markers_and_refuses_them(key: str) -> None:
    game = GAMES[key]
    seed = f"old-{key}".encode()
    events = game.setup_for(SEATS[key], {}, seed, BEFORE[key])
    state = game.fold(events)
    assert game.rules_in(state) == BEFORE[key] < game.rules
    for _ in range(40):
        if game.outcome(state) is not None:
            break
        seat = min(game.to_act(state))
        with pytest.raises(RuleViolation, match="take_back_unavailable"):
            game.decide(state, seat, TakeBack(), rng_for(seed, len(events) + 1))
        new = game.decide(state, seat, game.legal_commands(state, seat)[0], rng_for(seed, len(events) + 1))
        assert not any(isinstance(e, MovesBegan) for e in new)
        state = game.fold(new, state)
        events.extend(new)


def _decide(game: Game[Any, Any, Any, Any], state: Any, seat: int, command: Any) -> tuple[Any, list[Any]]:
    events = game.decide(state, seat, command, rng_for(b"s", 99))
    return game.fold(events, state), events


def test_el_capitan_a_bought_card_is_taken_back_until_the_next_player_acts() -> None:
    from domain.elcapitan.commands import BuyCard

    game = GAMES["elcapitan"]
    start, _ = game.start(3, {}, b"buy")
    seat = min(game.to_act(start))
    other = (seat + 1) % 3
    buys = [c for c in game.legal_commands(start, seat) if isinstance(c, BuyCard)]
    after, events = _decide(game, start, seat, buys[0])
    assert isinstance(events[0], MovesBegan) and may_take_back(after, seat)
    second = [c for c in game.legal_commands(after, seat) if isinstance(c, BuyCard)]
    if second:  # a second buy continues the run: one take-back undoes both
        after, events = _decide(game, after, seat, second[0])
        assert not isinstance(events[0], MovesBegan)
    for nobody in (other, (seat + 2) % 3):
        assert not may_take_back(after, nobody)
        with pytest.raises(RuleViolation, match="nothing_to_take_back"):
            game.decide(after, nobody, TakeBack(), rng_for(b"s", 99))
    back, events = _decide(game, after, seat, TakeBack())
    assert events == [MovesTakenBack(seat=seat)] and _bytes(back) == _bytes(start)
    with pytest.raises(RuleViolation, match="nothing_to_take_back"):
        game.decide(back, seat, TakeBack(), rng_for(b"s", 99))
    while game.to_act(after) == {seat}:  # the seat plays its turn to the end
        after, _ = _decide(game, after, seat, game.legal_commands(after, seat)[0])
    nxt = min(game.to_act(after))
    after, _ = _decide(game, after, nxt, game.legal_commands(after, nxt)[0])
    assert not may_take_back(after, seat), "the next player acted"


def test_manila_no_take_back_after_the_dice() -> None:
    from domain.manila import events as mev

    game = GAMES["manila"]
    seed = b"dice"
    state, events = game.start(3, {}, seed)
    pick = Rng(b"\x01" * 32)
    rolled = False
    while not rolled:
        seat = min(game.to_act(state))
        new = game.decide(
            state, seat, pick.choice(game.legal_commands(state, seat)), rng_for(seed, len(events) + 1)
        )
        state = game.fold(new, state)
        events.extend(new)
        rolled = any(isinstance(e, mev.DiceRolled) for e in new)
        if rolled:
            assert not any(may_take_back(state, s) for s in range(3))
            with pytest.raises(RuleViolation, match="nothing_to_take_back"):
                game.decide(state, seat, TakeBack(), rng_for(seed, len(events) + 1))


def test_another_seats_move_closes_the_window() -> None:
    game = GAMES["manila"]
    state, _ = game.start(3, {}, b"bids")
    first = min(game.to_act(state))
    state, new = _decide(game, state, first, game.legal_commands(state, first)[0])
    assert isinstance(new[0], MovesBegan) and may_take_back(state, first)
    while game.to_act(state) == {first}:
        state, new = _decide(game, state, first, game.legal_commands(state, first)[0])
        assert not isinstance(new[0], MovesBegan)
    second = min(game.to_act(state))
    state, new = _decide(game, state, second, game.legal_commands(state, second)[-1])
    assert new[0] == MovesBegan(seat=second)
    assert not may_take_back(state, first) and may_take_back(state, second)


@pytest.mark.parametrize("key", KEYS)
def test_a_search_step_that_folds_as_it_decides_keeps_the_window_as_fold_does(key: str) -> None:
    """``Game.play`` (a search's step, issue 45: ``decide_folded``) gives the state ``fold`` gives, window and
    all, through runs, reveals and take-backs."""
    game = GAMES[key]
    if getattr(game, "decide_folded", None) is None:
        pytest.skip("this game's search folds after deciding")
    seed = f"folded-{key}".encode()
    state, events = game.start(SEATS[key], {}, seed)
    pick = Rng(hashlib.sha256(seed).digest())
    for _ in range(400):
        if game.outcome(state) is not None:
            break
        seat = pick.choice(sorted(game.to_act(state)))
        mover = next((s for s in range(SEATS[key]) if may_take_back(state, s)), None)
        if mover is not None and pick.randint(1, 4) == 1:
            seat, command = mover, TakeBack()
        else:
            command = pick.choice(game.legal_commands(state, seat))
        new, after = game.play(state, seat, command, rng_for(seed, len(events) + 1))
        assert _bytes(after) == _bytes(game.fold(new, state))
        state = after
        events.extend(new)
