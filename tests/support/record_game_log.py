"""Record whole games through the real pipeline (bus, fold worker, Redis) and write their exports.

``python -m tests.support.record_game_log OUT_DIR`` plays the games of :data:`GAMES_TO_RECORD` on an
embedded Redis and writes each one's export (``harbormaster export``'s JSON Lines, gzipped) to ``OUT_DIR``.

The logs in ``tests/fixtures/rules_v1/`` were written by this script at commit e1a3b8c, before issue 32
changed El Capitán's and East India Companies' rules: they are games decided under the previous rules, and
``tests/unit/contract/test_rules_versions.py`` checks that they still verify. The players probe what later
changed: they try to end turns the old rules refused, move the pirate with card sets named in sorted order,
pay for a pirate move before sailing to Islas Canarias. Run again, the script records games of the rules
of its own tree.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from domain import GAMES
from domain.eic import bots as eic_bots
from domain.elcapitan import bots as elc_bots
from domain.elcapitan import commands as elc
from domain.elcapitan import data as elc_data
from domain.engine import Rng
from events import codec
from services import logging as hm_logging
from services.bootstrap import build
from services.config import Settings
from services.export import export_lines
from services.redis_launcher import EmbeddedRedis
from workers.fold import FoldWorker

Policy = Callable[[Any, int, Rng], list[Any]]
"""``(state, seat, rng) -> commands``: what a seat sends in a row (the last is the one that moves on)."""
Policies = tuple[Policy, ...]
"""One policy per seat (the last one repeated for the seats beyond)."""


def elcapitan_prober(state: Any, seat: int, rng: Rng) -> list[Any]:
    """The greedy merchant, with probes: an ``EndTurn`` the rules may refuse, pirate moves with cards
    (also of several cards), and a paid pirate move before the ship sails to Islas Canarias."""
    legal = GAMES["elcapitan"].legal_commands(state, seat)
    out: list[Any] = []
    if state.stage == "turn" and elc.EndTurn() not in legal and rng.random() < 0.3:
        out.append(elc.EndTurn())  # refused by the rules: recorded as rejected
    pirate_moves = [c for c in legal if isinstance(c, elc.MovePirate) and not c.free]
    with_cards = [c for c in pirate_moves if c.cards]
    several = [c for c in with_cards if len(c.cards) > 1]
    to_canarias = [c for c in legal if isinstance(c, elc.Sail) and c.to == elc_data.CANARIAS]
    paid = [c for c in pirate_moves if not c.cards]
    if several and rng.random() < 0.5:
        return [*out, rng.choice(several)]
    if with_cards and rng.random() < 0.1:
        return [*out, rng.choice(with_cards)]
    if to_canarias and paid and not state.turn.pirate_moved and not state.turn.sailed:
        return [*out, rng.choice(paid)]
    if to_canarias and state.turn.pirate_moved and not state.turn.sailed and rng.random() < 0.7:
        return [*out, rng.choice(to_canarias)]
    return [*out, elc_bots.greedy_bot(state, seat, rng)]


def elcapitan_hoarder(state: Any, seat: int, rng: Rng) -> list[Any]:
    """Buys every card it can (up to nine in hand: the old rules listed every pirate move of a larger hand,
    which took minutes), takes every loan, moves the pirate with cards, builds only when forced."""
    legal = GAMES["elcapitan"].legal_commands(state, seat)
    if state.stage != "turn":
        return [elc_bots.random_bot(state, seat, rng)]
    out: list[Any] = []
    if elc.EndTurn() not in legal and rng.random() < 0.5:
        out.append(elc.EndTurn())
    buys = [c for c in legal if isinstance(c, elc.BuyCard)]
    several = [c for c in legal if isinstance(c, elc.MovePirate) and len(c.cards) > 1]
    loans = [c for c in legal if isinstance(c, elc.TakeLoan)]
    if several and rng.random() < 0.5:
        return [*out, rng.choice(several)]
    if buys and not state.turn.acted and len(state.players[seat].hand) < 9:
        return [*out, rng.choice(buys)]
    if loans:
        return [*out, rng.choice(loans)]
    if elc.EndTurn() in legal:
        return [*out, elc.EndTurn()]
    rest = [c for c in legal if not isinstance(c, elc.BuyCard | elc.MovePirate)] or legal
    return [*out, rng.choice(rest)]


def eic_player(state: Any, seat: int, rng: Rng) -> list[Any]:
    """Greedy most of the time, now and then any legal command."""
    if rng.random() < 0.2:
        return [eic_bots.random_bot(state, seat, rng)]
    return [eic_bots.greedy_bot(state, seat, rng)]


GAMES_TO_RECORD: tuple[tuple[str, str, int, dict[str, Any], Policies], ...] = (
    (
        "elcapitan-3p-all",
        "elcapitan",
        3,
        {"expansions": ["porto", "lisboa", "canarias"]},
        (elcapitan_hoarder, elcapitan_prober),
    ),
    (
        "elcapitan-2p-canarias",
        "elcapitan",
        2,
        {"expansions": ["canarias"]},
        (elcapitan_prober, elcapitan_hoarder),
    ),
    ("eic-2p", "eic", 2, {}, (eic_player,)),
)


def record(
    services: Any,
    worker: FoldWorker,
    game_id: str,
    key: str,
    seats: int,
    options: dict[str, Any],
    policies: Policies,
) -> list[bytes]:
    """Play one game to its end through the bus and the fold worker; its export lines."""
    game = GAMES[key]
    seed = hashlib.sha256(f"record-{game_id}".encode()).digest()
    services.store.create(key, game_id, seats, options, seed)
    rng = Rng(hashlib.sha256(b"policy" + seed).digest())
    for _ in range(100_000):
        loaded = worker.cache.get(game_id) or services.store.load(game_id)
        if game.outcome(loaded.state) is not None:
            break
        seat = rng.choice(sorted(game.to_act(loaded.state)))
        policy = policies[min(seat, len(policies) - 1)]
        for command in policy(loaded.state, seat, rng):
            services.bus.submit(game_id, seat, codec.encode_command(command))
        while worker.process(services.bus.read(worker.worker_id, sorted(worker.leases.owned), 10, None)):
            pass
    else:
        raise RuntimeError(f"{game_id}: no end")
    return list(export_lines(services.store, game_id))


def neutral_dock_gap_matters(lines: list[bytes]) -> bool:
    """2 players: at epoch 5's start a Galleon of the neutral lies left of a ship it keeps, and the neutral
    gains a ship in epoch 5 (where the new ship docks changed with issue 32)."""
    from domain.eic import events as eic_ev
    from services.audit.jsonl import LINE_DECODER, EventLine

    game = GAMES["eic"]
    state = None
    gap = False
    for raw in lines:
        line = LINE_DECODER.decode(raw)
        if not isinstance(line, EventLine):
            continue
        event = msgspec.convert(line.event, type=game.Event)
        if isinstance(event, eic_ev.EpochBegan) and event.epoch == 5 and state is not None:
            kinds = [s.kind for s in state.players[state.neutral].ships if s.zone == 0]
            firsts = [i for i, k in enumerate(kinds) if k in ("G1", "G2")]
            gap = bool(firsts) and any(k not in ("G1", "G2") for k in kinds[firsts[0] :])
        if gap and isinstance(event, eic_ev.NeutralEnvoysPlaced) and event.ship and not event.discard:
            return True
        state = game.evolve(state, event)
    return False


def main(out: Path, only: str = "") -> None:
    hm_logging.configure("console", "warning", cache=False)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        server.start()
        try:
            settings = Settings(redis_url=server.url, data_dir=Path(folder), partitions=1, snapshot_every=200)
            services = build(settings, server.url, games=GAMES)
            worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
            worker.bus.ensure_groups()
            worker.leases.heartbeat()
            assert worker.leases.owned == {0}
            for name, key, seats, options, policies in GAMES_TO_RECORD:
                if only and name != only:
                    continue
                lines = record(services, worker, name, key, seats, options, policies)
                tries = 0
                while key == "eic" and not neutral_dock_gap_matters(lines):
                    tries += 1
                    lines = record(services, worker, f"{name}-{tries}", key, seats, options, policies)
                with gzip.GzipFile(out / f"{name}.jsonl.gz", "wb", mtime=0) as handle:
                    handle.write(b"".join(line + b"\n" for line in lines))
                print(name, len(lines), "lines")
        finally:
            server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
