// El Capitán in words: the log's sentences and each legal command as steps on the board.
import { t, tNodes } from "../i18n.js";
import { CARDS, CITIES, cardText, title } from "./elcapitan-data.js";

const fl = (n) => t(n === 1 ? "ec.florin" : "ec.florins", { n });
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " " + t("list.and") + " " + items[items.length - 1]);
const DECKS = { destination: t("ec.deck.destination"), interconnection: t("ec.deck.interconnection") };

function shipCity(view, ctx) {
  const me = view.players[ctx.viewer];
  return me ? me.ship : "";
}

/** A legal command as the steps a player takes on the board. */
export function path(c, view, ctx) {
  const here = shipCity(view, ctx);
  const me = view.players[ctx.viewer] || {};
  switch (c.type) {
    case "BuyCard":
      return [{ key: `buy:${c.card}`, label: t("ec.buy", { card: cardText(c.card), cost: fl((CARDS[c.card] || {}).cost) }) }];
    case "Sail":
      return [{ key: `city:${c.to}`, label: t("ec.sail_to", { city: title(c.to) }) }, { key: `hand:${c.card}`, label: t("ec.with_card", { card: cardText(c.card) }) }];
    case "BuildWarehouse":
    case "ReopenWarehouse": {
      const cost = c.type === "ReopenWarehouse" ? 0 : (CITIES[here] || { harbours: [] }).harbours[me.harbour];
      const verb = c.type === "ReopenWarehouse" ? "ec.reopen" : "ec.build";
      const steps = [{ key: `site:${here}:${c.site}`, label: t(verb, { site: c.site, city: title(here) }) + (cost ? ` (${fl(cost)})` : "") }];
      if (view.seats === 2) steps.push({ key: c.neutral ? "neutral" : "own", label: t(c.neutral ? "ec.neutral" : "ec.own_colour") });
      return steps;
    }
    case "BuildFortress":
      return [{ key: `fortress:${here}`, label: t("ec.build_fortress", { city: title(here) }) }];
    case "TakeLoan":
      return [{ key: "bank", label: t("ec.to_bank") }, { key: `loan:${c.amount}`, label: t("ec.take", { amount: fl(c.amount) }) }];
    case "MovePirate": {
      // The cards are played in the order named, each from where the one before took the pirate (issue 32).
      const how = c.free ? t("ec.free") : c.cards.length ? t("ec.with_card", { card: c.cards.map(cardText).join(t("ec.then")) }) : t("ec.per_step");
      const target = { key: `harbour:${c.to}:${c.space}`, label: t("ec.pirate_to", { city: title(c.to), n: c.space + 1 }) };
      // A paid move is open every turn: it starts with a button, so that the harbours light up as the
      // pirate's targets only once the player chose to move it. The free move owed is the whole decision.
      const start = c.free ? [] : [{ key: "pirate", label: t("ec.move_pirate") }];
      return [...start, target, { key: `pay:${c.free ? "free" : c.cards.join(",")}`, label: how }];
    }
    case "EndTurn":
      return [{ key: "end", label: t("ec.end_turn") }];
    case "RepayLoan":
      return [{ key: `repay:${c.loan}`, label: t("ec.repay", { n: c.loan + 1, amount: fl((me.loans || [])[c.loan] ? me.loans[c.loan].amount : 0) }) }];
    case "ExtendLoan":
      return [{ key: `extend:${c.loan}`, label: t("ec.extend", { n: c.loan + 1 }) }];
    case "ChooseStartPlayer":
      return [{ key: `start:${c.seat}`, label: t("ec.starts_next", { name: ctx.people.name(c.seat) }) }];
    default:
      return [{ key: c.type, label: c.type }];
  }
}

/** An event as a sentence (a list of strings and name chips), or null to leave it out. */
export function describe(e, ctx) {
  const who = (s) => ctx.people.who(s);
  switch (e.type) {
    case "GameStarted":
      return tNodes(e.expansions.length ? "ec.log.start_with" : "ec.log.start", { n: e.seats, cities: list(e.expansions.map(title)), who: who(e.start_player) });
    case "DeckShuffled":
      return t(e.from_discard ? "ec.log.shuffled_discards" : "ec.log.shuffled", { deck: DECKS[e.deck] || e.deck });
    case "CardsRevealed":
      return t("ec.log.revealed", { deck: DECKS[e.deck] || e.deck, cards: list(e.cards.map(cardText)) });
    case "CardBought":
      return tNodes("ec.log.bought", { who: who(e.seat), card: cardText(e.card), cost: fl(e.cost) });
    case "ShipSailed":
      return tNodes(e.card ? "ec.log.sailed_with" : "ec.log.sailed", { who: who(e.seat), city: title(e.to), card: e.card ? cardText(e.card) : "" });
    case "WarehouseBuilt":
      // With two players colours 2 and 3 are the players' neutral colours (owner = colour % 2).
      return tNodes(e.colour !== e.seat ? "ec.log.built_neutral" : "ec.log.built", { who: who(e.seat), city: title(e.city), site: e.site, cost: fl(e.cost) });
    case "WarehouseReopened":
      return tNodes("ec.log.reopened", { who: who(e.seat), city: title(e.city), site: e.site });
    case "WarehouseShutDown":
      return t(e.removed ? "ec.log.shut_removed" : "ec.log.shut", { city: title(e.city), site: e.site });
    case "FortressBuilt":
      return tNodes("ec.log.fortress", { who: who(e.seat), city: title(e.city), cost: fl(e.cost) });
    case "ImmediatePaymentReceived":
      return tNodes("ec.log.paid_at_once", { who: who(e.seat), amount: fl(e.amount) });
    case "BonusCardTaken":
      return tNodes("ec.log.bonus", { who: who(e.seat), amount: fl(e.amount) });
    case "PirateMoved":
      return [tNodes("ec.log.pirate", { who: who(e.seat), city: title(e.to) }), e.cost ? " " + t("ec.log.for", { amount: fl(e.cost) }) : "",
        e.displaced !== null && e.displaced !== undefined && e.displaced >= 0 ? [", ", tNodes("ec.log.driving_off", { who: who(e.displaced) })] : "", "."];
    case "ProtectionCollected":
      return tNodes("ec.log.protection", { who: who(e.seat), city: title(e.city) });
    case "LoanTaken":
      return tNodes(e.cover ? "ec.log.loan_cover" : "ec.log.loan", { who: who(e.seat), amount: fl(e.amount) });
    case "TurnEnded":
      return e.passed ? tNodes("ec.log.passes", { who: who(e.seat) }) : null;
    case "TurnStarted":
      return null;
    case "PhaseEndAnnounced":
      return tNodes(e.reason === "no_building_for_a_round" ? "ec.log.phase_end_idle" : "ec.log.phase_end", { who: who(e.seat) });
    case "PaydayHeld":
      return [t("ec.log.payday", { n: e.phase }), " ", e.majorities.flatMap((m, s) => {
        const total = m + e.proliferation[s] + e.fortresses[s] + e.bonuses[s];
        return [s ? "; " : "", who(s), ` +${total}`];
      }), "."];
    case "LoanRepaid":
      return tNodes("ec.log.repaid", { who: who(e.seat), amount: fl(e.amount) });
    case "LoanExtended":
      return tNodes("ec.log.extended", { who: who(e.seat) });
    case "MoneyChecked":
      return e.chooser >= 0 ? tNodes("ec.log.poorest", { who: who(e.chooser) }) : null;
    case "PhaseStarted":
      return tNodes("ec.log.phase", { n: e.phase, who: who(e.start_player) });
    case "GameEnded":
      return t("ec.log.end");
    default:
      return e.type;
  }
}
