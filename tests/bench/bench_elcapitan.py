"""El Capitán figures: random-bot games per second on one core, events per game, greedy win rate."""

from tests.bench.game_figures import report


def main() -> None:
    report("elcapitan")
