"""Bot policies over ``legal_commands``: a random bot and a greedy one (pure; chance from the rng given)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic import commands as cmd
from domain.eic.board import market_side, purchase_cost, share_value, with_player
from domain.eic.rules import legal_commands
from domain.eic.rules.epoch_end import wealth
from domain.eic.rules.navigation import deck, influence_viewers
from domain.eic.state import Ship, State
from domain.engine import Bot, Command, Rng
from domain.search import Searcher, mostly, softmax, strong_bot

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


# --- the search bot (issue 45) ---------------------------------------------------------------------------


def _unseen(state: State, ship: Ship) -> bool:
    """As ``views._unseen``: face down, or in its owner's hand in phase C."""
    return ship.face_down or (state.phase == "C" and ship.zone == 0)


def _sample_ships(state: State, owner: int, rng: Rng) -> State:
    """Another company's unseen ships dealt again among their places: which tile lies where is its
    secret (the view shows each place's zone, side and cargo, and the kinds only as a sorted list)."""
    public = {i for ids in (*state.left, state.queue) for i in ids}
    ships = state.players[owner].ships
    slots = [k for k, s in enumerate(ships) if _unseen(state, s) and s.id not in public]
    if len(slots) < 2:
        return state
    tiles = rng.shuffled(sorted((ships[k].id, ships[k].kind, ships[k].gained) for k in slots))
    renamed: dict[str, str] = {}
    placed = list(ships)
    for k, (tile, kind, gained) in zip(slots, tiles, strict=True):
        renamed[ships[k].id] = tile
        placed[k] = replace(ships[k], id=tile, kind=kind, gained=gained)
    zones = tuple(tuple(renamed.get(i, i) for i in zone) for zone in state.zones)
    return replace(with_player(state, owner, ships=tuple(placed)), zones=zones)


def _sample_card(state: State, seat: int, market: str, rng: Rng) -> str | None:
    """A market card ``seat`` has not seen, drawn again from this epoch's cards still in play."""
    card, revealed = (
        (state.eu_card, state.eu_revealed) if market == "europe" else (state.fe_card, state.fe_revealed)
    )
    if card is None or revealed or state.phase == "over" or seat in influence_viewers(state, market):
        return card
    return rng.choice(deck(state, market))


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state consistent with what ``seat`` sees: the other seated companies' unseen ships placed at
    random among their places, and the market cards it may not look at drawn again."""
    for owner in range(state.seats):
        if owner != seat:
            state = _sample_ships(state, owner, rng)
    fe = _sample_card(state, seat, "far_east", rng)
    eu = _sample_card(state, seat, "europe", rng)
    return replace(state, fe_card=fe, eu_card=eu)


def prospects(state: State) -> list[float]:
    """Each seated company's share of the win from its wealth now (shares at value and treasury)."""
    return softmax([float(wealth(state, s)) for s in range(state.seats)], 15.0)


SEARCHER = Searcher(
    game=GAME,
    determinize=determinize,
    rollout=mostly(greedy_bot, random_bot),
    guide=greedy_bot,
    value=prospects,
    rollout_depth=16,
)
STRONG_ITERATIONS = 60
"""Iterations of the ``strong`` bot a move as seated (see docs/benchmarks.md)."""
BOTS["strong"] = strong_bot(SEARCHER, STRONG_ITERATIONS)
