"""East India Companies figures: random-bot games per second on one core, events per game, greedy win rate,
and how often the neutral's oldest ship is not its leftmost (issue 16)."""

from domain.eic import GAME, bots
from domain.eic import events as ev
from domain.eic.state import State
from domain.engine import play_out
from tests.bench.game_figures import report


def neutral_discards(games: int = 300) -> None:
    """In random 2-player games: the neutral's discards, and those the old rule (leftmost) got wrong."""
    total = not_leftmost = new_leftmost = 0
    for i in range(games):
        state: State | None = None
        for event in play_out(GAME, 2, {}, f"bench-{i}".encode(), [bots.random_bot] * 2).events:
            after = GAME.evolve(state, event)
            if isinstance(event, ev.NeutralEnvoysPlaced) and event.discard and state is not None:
                total += 1
                not_leftmost += state.players[state.neutral].ships[0].id != event.discard
                new_leftmost += after.players[after.neutral].ships[0].kind == event.ship
            state = after
    print(f"eic: {games} random 2-player games: {total} neutral discards (no free dock), "
          f"{not_leftmost} of them not the leftmost ship; the new ship leftmost after {new_leftmost}")  # fmt: skip


def main() -> None:
    report("eic")
    neutral_discards()
