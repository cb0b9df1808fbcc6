"""Bot policies over ``legal_commands``: a random bot and a greedy one (pure; chance from the rng given)."""

from __future__ import annotations

from domain.eic import commands as cmd
from domain.eic import data
from domain.eic.rules import legal_commands
from domain.eic.state import State, share_value
from domain.engine import Bot, Command, Rng


def random_bot(state: State, seat: int, rng: Rng) -> Command:
    """Any legal command, uniformly."""
    return rng.choice(legal_commands(state, seat))


def _score(state: State, seat: int, command: Command) -> float:
    """A one-step heuristic: cheap cargo sold dear, growth of one's own company, no idle selling."""
    player = state.players[seat]
    if isinstance(command, cmd.SellShares | cmd.PledgeStartShare | cmd.RecallEnvoy):
        return -100.0
    if isinstance(command, cmd.LoadShip):
        return sum(command.goods) * 10.0 - _cost(state, seat, command)
    if isinstance(command, cmd.UnloadShip | cmd.SellFromWarehouse):
        return -float(sum(command.store if isinstance(command, cmd.UnloadShip) else ())) * 5.0
    if isinstance(command, cmd.BuyShare):
        own = command.company == seat
        return (8.0 if own else 2.0) if state.epoch < data.EPOCHS and player.treasury > 12 else -1.0
    if isinstance(command, cmd.PlaceEnvoy):
        return _envoy_value(state, seat, command)
    if isinstance(command, cmd.SendShip):
        return -float(command.zone == 1) * 0.5 + float(command.zone == 3) * 0.2
    return 0.0


def _cost(state: State, seat: int, command: cmd.LoadShip) -> float:
    from domain.eic.state import purchase_cost

    return float(purchase_cost(state, seat, state.zone, command.goods))


def _envoy_value(state: State, seat: int, command: cmd.PlaceEnvoy) -> float:
    if command.ship:
        ship = data.SHIP_TYPES[command.ship]
        return 6.0 + ship.tonnage - (3.0 if command.discard else 0.0) - ship.cost * 0.3
    values = {"SHP_HARBOUR_EXT": 3.0, "CAP_CARTOGRAPHY": 2.0, "MER_TRADE_SILK": 2.5, "MER_TRADE_COFFEE": 2.0}
    return values.get(command.space, 1.0) - (0.5 if command.space == "central" else 0.0)


def greedy_bot(state: State, seat: int, rng: Rng) -> Command:
    """The best command by a one-step heuristic, ties broken by the rng."""
    legal = legal_commands(state, seat)
    scored = [(_score(state, seat, c), i) for i, c in enumerate(legal)]
    best = max(s for s, _ in scored)
    return legal[rng.choice([i for s, i in scored if s == best])]


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
_ = share_value
