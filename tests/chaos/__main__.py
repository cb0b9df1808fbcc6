"""``python -m tests.chaos`` (``make chaos``): the chaos run, its figures printed; exit 1 if a check fails.
``python -m tests.chaos tournaments``: the tournament chaos run (``tests/chaos/tournaments.py``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Protocol

from tests.chaos.faults import WEIGHTS
from tests.chaos.run import ChaosConfig, run_chaos


class _Result(Protocol):
    """What both chaos runs' results give: their lines to print and whether every check passed."""

    @property
    def ok(self) -> bool: ...

    def lines(self) -> list[str]: ...


def main() -> int:
    if sys.argv[1:2] == ["tournaments"]:
        return tournaments(sys.argv[2:])
    p = argparse.ArgumentParser(prog="python -m tests.chaos", description=__doc__)
    p.add_argument("--bot-games", type=int, default=12, help="all-bot games (cycling through the kinds)")
    p.add_argument("--http-games", type=int, default=3, help="games whose seat 0 is an HTTP player")
    p.add_argument("--ws-games", type=int, default=3, help="games whose seat 0 plays over its WebSocket")
    _fault_options(
        p,
        duration=120.0,
        settle=(900.0, "seconds the games then have to end, at most"),
        faults="the faults and their weights, e.g. rollback=3,redis=1 (default: every kind, faults.WEIGHTS)",
    )
    args = p.parse_args()
    config = ChaosConfig(
        bot_games=args.bot_games, http_games=args.http_games, ws_games=args.ws_games, **_fault_settings(args)
    )
    return _report(run_chaos(config))


def tournaments(argv: list[str]) -> int:
    from tests.chaos.tournaments import TournamentChaosConfig, run_tournament_chaos

    p = argparse.ArgumentParser(prog="python -m tests.chaos tournaments", description=__doc__)
    p.add_argument("--tournaments", type=int, default=24, help="tournaments at once (every format and game)")
    _fault_options(
        p,
        duration=300.0,
        settle=(1200.0, "seconds the tournaments then have to end"),
        faults="the faults and their weights (default: every kind but rollback)",
    )
    args = p.parse_args(argv)
    config = TournamentChaosConfig(tournaments=args.tournaments, **_fault_settings(args))
    return _report(run_tournament_chaos(config))


def _fault_options(
    p: argparse.ArgumentParser, duration: float, settle: tuple[float, str], faults: str
) -> None:
    """The options both chaos runs take (their defaults and words differ where the runs do)."""
    p.add_argument("--duration", type=float, default=duration, help="seconds of fault injection (at most)")
    p.add_argument("--settle", type=float, default=settle[0], help=settle[1])
    p.add_argument("--gap", type=float, nargs=2, default=(1.0, 3.0), help="seconds between faults (min max)")
    p.add_argument("--faults", help=faults)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2, help="fold workers under serve")


def _fault_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The configs' fields for ``_fault_options``'s options."""
    return {
        "duration_s": args.duration,
        "settle_s": args.settle,
        "gap_s": (args.gap[0], args.gap[1]),
        "seed": args.seed,
        "faults": _weights(args.faults) if args.faults else None,
        "workers": args.workers,
    }


def _report(result: _Result) -> int:
    print("\n".join(result.lines()))
    return 0 if result.ok else 1


def _weights(text: str) -> dict[str, int]:
    weights = {}
    for part in text.split(","):
        kind, _, weight = part.partition("=")
        if kind not in WEIGHTS:
            raise SystemExit(f"unknown fault {kind!r}; known: {', '.join(WEIGHTS)}")
        weights[kind] = int(weight or 1)
    return weights


if __name__ == "__main__":
    sys.exit(main())
