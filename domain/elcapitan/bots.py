"""Bots for El Capitán: a random one and a greedy one, both choosing among ``legal_commands``.

The greedy merchant looks one building ahead: for the city it is in, each city a card in hand reaches,
and each city a displayed card would reach, it prices a warehouse or fortress by what it adds to the
next paydays (majority, proliferation, fortress) minus what it costs, then plays the first step of the
best plan (buy, sail, build). It takes a loan when nothing pays, repays loans when it can and never
buys cards it does not use at once.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan import commands as cmd
from domain.elcapitan.rules import legal_commands
from domain.elcapitan.rules.board import CITY, DESTINATION, arrival_space, card_cost, colour_of, repayment
from domain.elcapitan.rules.chain import next_sites, row_allowed, value
from domain.elcapitan.rules.payday import majority_payouts, wealth
from domain.elcapitan.rules.pirate import protection
from domain.elcapitan.rules.sailing import sail_targets
from domain.elcapitan.state import EMPTY, CityState, State
from domain.engine import Bot, Rng
from domain.search import Searcher, mostly, softmax, strong_bot

Plan = tuple[float, list[cmd.ElCapitanCommand]]


_ACTIONS = (cmd.BuildWarehouse, cmd.ReopenWarehouse, cmd.BuildFortress)


def _random_settlement(state: State, seat: int, legal: list[cmd.ElCapitanCommand]) -> cmd.ElCapitanCommand:
    """Repay a loan the cash covers, else extend one: a random merchant does not borrow to repay."""
    p = state.players[seat]
    for command in legal:
        if isinstance(command, cmd.RepayLoan):
            loan = p.loans[command.loan]
            if p.money >= repayment(loan.amount, loan.extended):
                return command
    return next((c for c in legal if isinstance(c, cmd.ExtendLoan)), legal[0])


def _random_turn_step(
    state: State, seat: int, legal: list[cmd.ElCapitanCommand], rng: Rng
) -> cmd.ElCapitanCommand | None:
    """A random build if there is one, else one random sailing, else a card only when no card in hand
    sails, else a random loan: random, but it does not spend its money on cards it never plays."""
    for kinds in (_ACTIONS, (cmd.MovePirate,) if state.turn.pirate_due else ()):
        chosen = [c for c in legal if isinstance(c, kinds)]
        if chosen:
            return rng.choice(chosen)
    if state.turn.acted:
        return None
    sails = [c for c in legal if isinstance(c, cmd.Sail)]
    if sails and not state.turn.sailed:
        return rng.choice(sails)
    buys = [c for c in legal if isinstance(c, cmd.BuyCard)]
    if buys and not sails and not state.turn.sailed:
        return rng.choice(buys)
    loans = [c for c in legal if isinstance(c, cmd.TakeLoan)]
    return rng.choice(loans) if loans else None


def random_bot(state: State, seat: int, rng: Rng) -> cmd.ElCapitanCommand:
    """A random merchant: random builds, sailings, cards and loans, in the order of a turn.

    Uniform choice among all legal commands would buy cards every turn until the cash and all 30 loan
    cards are gone, and then no one could build again; this one plays at random but like a merchant.
    """
    legal = legal_commands(state, seat)
    if state.stage == "loans":
        return _random_settlement(state, seat, legal)
    if state.stage == "turn":
        step = _random_turn_step(state, seat, legal, rng)
        if step is not None:
            return step
        if cmd.EndTurn() in legal:
            return cmd.EndTurn()
    return rng.choice(legal)


def _paydays_left(state: State) -> float:
    return 1.0 + 0.6 * (data.PHASES - state.phase)


def _warehouse_gain(state: State, seat: int, city: CityState, neutral: bool) -> float:
    """What one more warehouse here adds to the next paydays (shut-downs ignored)."""
    site = next_sites(city)[-1]
    colour = colour_of(seat, state.seats, neutral)
    placed = replace(
        city, sites=(*city.sites[: site - 1], colour, *city.sites[site:]), frontier=max(city.frontier, site)
    )
    gain = majority_payouts(state, placed)[seat] - majority_payouts(state, city)[seat]
    held = sum(1 for c in state.cities if seat in c.sites)
    if not neutral and seat not in city.sites:
        gain += data.PROLIFERATION[min(held + 1, 12)] - data.PROLIFERATION[held] + (3 if held >= 6 else 1)
    return gain * _paydays_left(state)


def _best_action(state: State, seat: int, name: str, space: int) -> Plan | None:
    """The best build in city ``name`` from harbour ``space``, valued net of its cost."""
    city = state.cities[state.city_index(name)]
    p = state.players[seat]
    best: Plan | None = None
    sites = next_sites(city)
    cost = CITY[name].harbours[space]
    for neutral in (False, True) if state.seats == 2 else (False,):
        supply = p.neutral if neutral else p.warehouses
        colour = colour_of(seat, state.seats, neutral)
        if (
            not sites
            or supply <= 0
            or p.money < cost
            or not row_allowed(city, sites[-1], colour, state.seats)
        ):
            continue
        score = _warehouse_gain(state, seat, city, neutral) - cost
        if best is None or score > best[0]:
            best = (score, [cmd.BuildWarehouse(site=sites[-1], neutral=neutral)])
    if p.fortresses and seat not in city.fortresses and EMPTY in city.fortresses:
        price = CITY[name].fortresses[city.fortresses.index(EMPTY)]
        if p.money >= price:
            score = (value(city) / 2) * _paydays_left(state) + 2 - price
            if best is None or score > best[0]:
                best = (score, [cmd.BuildFortress()])
    return best


def _via(state: State, seat: int, card: str, extra_cost: int) -> Plan | None:
    best: Plan | None = None
    for to in sail_targets(state, seat, card):
        space = arrival_space(state, seat, to)
        if space == EMPTY:
            continue
        plan = _best_action(state, seat, to, space)
        if plan is not None and (best is None or plan[0] - extra_cost > best[0]):
            best = (plan[0] - extra_cost - 0.5, [cmd.Sail(card=card, to=to), *plan[1]])
    return best


def _plan(state: State, seat: int) -> Plan | None:
    plans = _plans(state, seat)
    return max(plans, key=lambda plan: plan[0]) if plans else None


def _plans(state: State, seat: int) -> list[Plan]:
    """Every build plan in reach: here, by a card in hand, by a card bought from the display."""
    p = state.players[seat]
    plans: list[Plan] = []
    if p.harbour != EMPTY and p.ship not in ("", "bank"):
        here = _best_action(state, seat, p.ship, p.harbour)
        if here is not None:
            plans.append(here)
    for card in dict.fromkeys(p.hand):
        found = _via(state, seat, card, 0)
        if found is not None:
            plans.append(found)
    for card in (*state.destinations.display, *state.interconnections.display):
        cost = card_cost(card)
        if cost >= p.money:
            continue
        bought = replace(p, hand=(*p.hand, card), money=p.money - cost)
        trial = replace(state, players=(*state.players[:seat], bought, *state.players[seat + 1 :]))
        found = _via(trial, seat, card, cost)
        if found is not None:
            plans.append((found[0], [cmd.BuyCard(card=card), *found[1]]))
    return plans


def _settle(state: State, seat: int, legal: list[cmd.ElCapitanCommand]) -> cmd.ElCapitanCommand:
    p = state.players[seat]
    for command in legal:
        if isinstance(command, cmd.RepayLoan):
            loan = p.loans[command.loan]
            kind = next(k for k in data.LOANS if k.amount == loan.amount)
            due = kind.repay_extended if loan.extended else kind.repay
            if p.money >= due + 6 or loan.extended:
                return command
    return next((c for c in legal if isinstance(c, cmd.ExtendLoan)), legal[0])


def _pirate(state: State, seat: int, legal: list[cmd.ElCapitanCommand]) -> cmd.ElCapitanCommand | None:
    free = [c for c in legal if isinstance(c, cmd.MovePirate) and c.free]
    if not free:
        return None
    return max(free, key=lambda c: (sum(protection(state, seat, c.to)), -c.space))


def greedy_bot(state: State, seat: int, rng: Rng) -> cmd.ElCapitanCommand:
    """One-building lookahead: the best priced build reachable now, else a loan, else the turn's end."""
    legal = legal_commands(state, seat)
    if state.stage == "loans":
        return _settle(state, seat, legal)
    if state.stage == "choose_start":
        worth = wealth(state)
        return cmd.ChooseStartPlayer(
            seat=max(range(state.seats), key=lambda s: worth[s] if s != seat else -999)
        )
    pirate = _pirate(state, seat, legal)
    if pirate is not None:
        return pirate
    if not state.turn.acted:
        plan = _plan(state, seat)
        if plan is not None and plan[0] > -3 and plan[1][0] in legal:
            return plan[1][0]
        loans = [c for c in legal if isinstance(c, cmd.TakeLoan)]
        if loans:
            return loans[0]
        if plan is not None and plan[1][0] in legal:
            return plan[1][0]
    if cmd.EndTurn() in legal:
        return cmd.EndTurn()
    cheap = [c for c in legal if not isinstance(c, cmd.BuyCard | cmd.MovePirate)]
    if cheap:
        return rng.choice(cheap)
    dest = [c for c in legal if isinstance(c, cmd.BuyCard) and c.card in DESTINATION]
    return rng.choice(dest or legal)


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}


# --- the search bot (issue 45) ---------------------------------------------------------------------------


def determinize(state: State, seat: int, rng: Rng) -> State:
    """A state consistent with what ``seat`` sees: the only secret is the order of the draw piles.

    Which cards a pile holds is public (every card not on display, in a hand or discarded), so the
    sorted pile is what the view tells; the order is drawn from ``rng``.
    """
    d, i = state.destinations, state.interconnections
    return replace(
        state,
        destinations=replace(d, draw=tuple(rng.shuffled(sorted(d.draw)))),
        interconnections=replace(i, draw=tuple(rng.shuffled(sorted(i.draw)))),
    )


def prospects(state: State) -> list[float]:
    """Each seat's share of the win, from its wealth plus what its warehouses would pay at the paydays
    left (majorities and proliferation as they stand), through a softmax: a lead of ~15 Florin counts."""
    pay = [0.0] * state.seats
    for city in state.cities:
        for s, amount in enumerate(majority_payouts(state, city)):
            pay[s] += amount
    for s in range(state.seats):
        pay[s] += data.PROLIFERATION[min(sum(1 for c in state.cities if s in c.sites), 12)]
    worth = [w + p * _paydays_left(state) for w, p in zip(wealth(state), pay, strict=True)]
    return softmax(worth, 15.0)


def shortlist(state: State, seat: int, legal: list[cmd.ElCapitanCommand]) -> list[cmd.ElCapitanCommand]:
    """The commands worth comparing with the greedy one: before the turn's action the first steps of
    its build plans, best first, then a loan and the turn's end; else the legal order."""
    if state.stage != "turn" or state.turn.acted:
        return legal
    plans = sorted(_plans(state, seat), key=lambda plan: -plan[0])
    loans = [c for c in legal if isinstance(c, cmd.TakeLoan)][:1]
    return [*(plan[1][0] for plan in plans), *loans, cmd.EndTurn(), *legal]


def _paid_out(start: State, now: State) -> bool:
    """A playout is valued once the phase it started in was paid out: money moves at a payday."""
    return now.phase != start.phase


SEARCHER = Searcher(
    game=GAME,
    determinize=determinize,
    rollout=mostly(greedy_bot, random_bot),
    guide=greedy_bot,
    value=prospects,
    rollout_depth=400,
    horizon=_paid_out,
    margin=0.02,
    shortlist=shortlist,
    candidates=4,
)
"""Playouts run to the payday of the phase they start in (``rollout_depth`` only bounds them): money moves
there, and a value of the game before it (wealth plus today's majorities paid at every payday left)
over-rates whatever a short playout builds. With the tree and 10-command playouts the bot won 29 % of
4-seat games against greedy bots, with the paired comparison and playouts of one round 22 % (3.5 of 16,
both at 40 iterations); to the payday, see docs/benchmarks.md. A playout to the payday costs more (about
6 ms here against 1 ms for a round), so a second buys fewer of them."""
STRONG_ITERATIONS = 60
"""Playouts of the ``strong`` bot a move as seated (well under a CPU-second here, see docs/benchmarks.md)."""
BOTS["strong"] = strong_bot(SEARCHER, STRONG_ITERATIONS)
