"""Bot policies over ``legal_commands``: a random bot and a greedy one (pure; chance from the rng given)."""

from __future__ import annotations

from domain.eic import commands as cmd
from domain.eic import data
from domain.eic.rules import legal_commands
from domain.eic.state import State, market_side, purchase_cost, share_value
from domain.engine import Bot, Command, Rng

_USEFUL_SPACES = {
    "SHP_HARBOUR_EXT": 2.0,
    "MER_TRADE_SILK": 3.0,
    "MER_TRADE_COFFEE": 2.5,
    "MER_TRADE_SPICES": 2.5,
    "CAP_CARTOGRAPHY": 1.5,
    "GOV_INFLUENCE_FE": 1.0,
    "INV_INFLUENCE_EU": 1.0,
}


def random_bot(state: State, seat: int, rng: Rng) -> Command:
    """Any legal command, uniformly."""
    return rng.choice(legal_commands(state, seat))


def _resale(state: State, good: int) -> int:
    """A guess at the Europe price a good fetches: the market after a typical demand of 4."""
    prices = data.EUROPE[market_side(state)][good]
    return prices[min(max(0, state.europe[good] - 4), len(prices) - 1)]


def _load_value(state: State, seat: int, command: cmd.LoadShip) -> float:
    value = sum(_resale(state, g) * n for g, n in enumerate(command.goods))
    return float(value - purchase_cost(state, seat, state.zone, command.goods))


def _envoy_value(state: State, seat: int, command: cmd.PlaceEnvoy) -> float:
    fees = len(state.occupants[data.SPACE_IDS.index(command.space)]) if command.space != "central" else 0
    if command.ship:
        ship = data.SHIP_TYPES[command.ship]
        spare = state.players[seat].treasury - ship.cost
        if state.epoch >= 4 or spare < 6:
            return -5.0
        return 2.0 + ship.tonnage + ship.speed - (2.0 if command.discard.endswith(("SH1", "SH2")) else 0.0)
    if command.space == "GOV_TRADING_POST":
        return 1.5 - fees
    if command.space == "CAP_EXPERTISE":
        return -1.0 - fees
    return _USEFUL_SPACES.get(command.space, 0.0) - 1.5 * fees - (0.5 if command.space == "central" else 0.0)


def _share_value(state: State, seat: int, command: cmd.BuyShare) -> float:
    """Buying one's own company lifts every share one holds of it; keep money for goods before epoch 5."""
    price = share_value(state, command.company)
    reserve = 0 if state.epoch == data.EPOCHS else 10
    if state.players[seat].treasury - price < reserve:
        return -1.0
    return 5.0 if command.company == seat else 0.5


def _score(state: State, seat: int, command: Command) -> float:
    """A one-step heuristic: profitable cargo, everything sold, one's own shares, no idle selling."""
    if isinstance(command, cmd.SellShares | cmd.PledgeStartShare | cmd.RecallEnvoy | cmd.RedeemStartShare):
        return -100.0
    if isinstance(command, cmd.LoadShip):
        return _load_value(state, seat, command)
    if isinstance(command, cmd.LeaveShipInFarEast):
        return -0.5
    if isinstance(command, cmd.UnloadShip):
        return -float(sum(command.store))
    if isinstance(command, cmd.SellFromWarehouse):
        return float(sum(command.goods))
    if isinstance(command, cmd.BuyShare):
        return _share_value(state, seat, command)
    if isinstance(command, cmd.PlaceEnvoy):
        return _envoy_value(state, seat, command)
    if isinstance(command, cmd.SendShip):
        return {1: -0.5, 2: 0.0, 3: 0.5}[command.zone]
    return 0.0


def greedy_bot(state: State, seat: int, rng: Rng) -> Command:
    """The best command by a one-step heuristic, ties broken by the rng."""
    legal = legal_commands(state, seat)
    scored = [(_score(state, seat, c), i) for i, c in enumerate(legal)]
    best = max(s for s, _ in scored)
    return legal[rng.choice([i for s, i in scored if s == best])]


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
