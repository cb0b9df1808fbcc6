// El Capitán in words: the log's sentences and each legal command as steps on the board.
import { CARDS, CITIES, cardText, title } from "./elcapitan-data.js";

const fl = (n) => `${n} florin${n === 1 ? "" : "s"}`;
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1]);

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
      return [{ key: `buy:${c.card}`, label: `Buy ${cardText(c.card)} (${fl((CARDS[c.card] || {}).cost)})` }];
    case "Sail":
      return [{ key: `city:${c.to}`, label: `Sail to ${title(c.to)}` }, { key: `hand:${c.card}`, label: `with ${cardText(c.card)}` }];
    case "BuildWarehouse":
    case "ReopenWarehouse": {
      const cost = c.type === "ReopenWarehouse" ? 0 : (CITIES[here] || { harbours: [] }).harbours[me.harbour];
      const verb = c.type === "ReopenWarehouse" ? "Reopen a warehouse" : "Build a warehouse";
      const steps = [{ key: `site:${here}:${c.site}`, label: `${verb} on site ${c.site} of ${title(here)}${cost ? ` (${fl(cost)})` : ""}` }];
      if (view.seats === 2) steps.push({ key: c.neutral ? "neutral" : "own", label: c.neutral ? "in the neutral colour" : "in your colour" });
      return steps;
    }
    case "BuildFortress":
      return [{ key: `fortress:${here}`, label: `Build a fortress in ${title(here)}` }];
    case "TakeLoan":
      return [{ key: "bank", label: "Sail to the bank for a loan" }, { key: `loan:${c.amount}`, label: `take ${fl(c.amount)}` }];
    case "MovePirate": {
      // The cards are played in the order named, each from where the one before took the pirate (issue 32).
      const how = c.free ? "free" : c.cards.length ? `with ${c.cards.map(cardText).join(", then ")}` : "for 2 florins a step";
      const target = { key: `harbour:${c.to}:${c.space}`, label: `Move the pirate to ${title(c.to)}, space ${c.space + 1}` };
      // A paid move is open every turn: it starts with a button, so that the harbours light up as the
      // pirate's targets only once the player chose to move it. The free move owed is the whole decision.
      const start = c.free ? [] : [{ key: "pirate", label: "Move the pirate…" }];
      return [...start, target, { key: `pay:${c.free ? "free" : c.cards.join(",")}`, label: how }];
    }
    case "EndTurn":
      return [{ key: "end", label: "End the turn" }];
    case "RepayLoan":
      return [{ key: `repay:${c.loan}`, label: `Repay loan ${c.loan + 1} (${fl((me.loans || [])[c.loan] ? me.loans[c.loan].amount : 0)} borrowed)` }];
    case "ExtendLoan":
      return [{ key: `extend:${c.loan}`, label: `Extend loan ${c.loan + 1}` }];
    case "ChooseStartPlayer":
      return [{ key: `start:${c.seat}`, label: `${ctx.people.name(c.seat)} starts the next phase` }];
    default:
      return [{ key: c.type, label: c.type }];
  }
}

/** An event as a sentence (a list of strings and name chips), or null to leave it out. */
export function describe(e, ctx) {
  const who = (s) => ctx.people.who(s);
  switch (e.type) {
    case "GameStarted":
      return [`A game of El Capitán for ${e.seats} begins`, e.expansions.length ? ` with ${list(e.expansions.map(title))}` : "", "; ", who(e.start_player), " starts."];
    case "DeckShuffled":
      return `The ${e.deck} cards are shuffled${e.from_discard ? " from the discards" : ""}.`;
    case "CardsRevealed":
      return `New ${e.deck} cards on display: ${list(e.cards.map(cardText))}.`;
    case "CardBought":
      return [who(e.seat), ` buys ${cardText(e.card)} for ${fl(e.cost)}.`];
    case "ShipSailed":
      return [who(e.seat), ` sails to ${title(e.to)}`, e.card ? ` with ${cardText(e.card)}` : "", "."];
    case "WarehouseBuilt":
      // With two players colours 2 and 3 are the players' neutral colours (owner = colour % 2).
      return [who(e.seat), ` builds a warehouse${e.colour !== e.seat ? " in the neutral colour" : ""} in ${title(e.city)} on site ${e.site} for ${fl(e.cost)}.`];
    case "WarehouseReopened":
      return [who(e.seat), ` reopens a warehouse in ${title(e.city)} on site ${e.site}.`];
    case "WarehouseShutDown":
      return [`A warehouse in ${title(e.city)} shuts down (site ${e.site})`, e.removed ? " and leaves the game" : "", "."];
    case "FortressBuilt":
      return [who(e.seat), ` builds a fortress in ${title(e.city)} for ${fl(e.cost)}.`];
    case "ImmediatePaymentReceived":
      return [who(e.seat), ` is paid ${fl(e.amount)} at once.`];
    case "BonusCardTaken":
      return [who(e.seat), ` takes a bonus card worth ${fl(e.amount)}.`];
    case "PirateMoved":
      return [who(e.seat), ` moves the pirate to ${title(e.to)}`, e.cost ? ` for ${fl(e.cost)}` : "", e.displaced !== null && e.displaced !== undefined && e.displaced >= 0 ? [", driving ", who(e.displaced), "'s ship off"] : "", "."];
    case "ProtectionCollected":
      return [who(e.seat), ` collects protection money in ${title(e.city)}.`];
    case "LoanTaken":
      return [who(e.seat), ` takes a loan of ${fl(e.amount)}`, e.cover ? " to cover a debt" : "", "."];
    case "TurnEnded":
      return e.passed ? [who(e.seat), " passes."] : null;
    case "TurnStarted":
      return null;
    case "PhaseEndAnnounced":
      return [who(e.seat), " announces the end of the phase", e.reason === "no_building_for_a_round" ? " (nobody built for a round)" : "", "."];
    case "PaydayHeld":
      return ["Payday of phase ", String(e.phase), ": ", e.majorities.flatMap((m, s) => {
        const total = m + e.proliferation[s] + e.fortresses[s] + e.bonuses[s];
        return [s ? "; " : "", who(s), ` +${total}`];
      }), "."];
    case "LoanRepaid":
      return [who(e.seat), ` repays a loan for ${fl(e.amount)}.`];
    case "LoanExtended":
      return [who(e.seat), " extends a loan."];
    case "MoneyChecked":
      return e.chooser >= 0 ? [who(e.chooser), " is the poorest and names the next start player."] : null;
    case "PhaseStarted":
      return [`Phase ${e.phase} begins; `, who(e.start_player), " starts."];
    case "GameEnded":
      return "The third payday is over: the game ends.";
    default:
      return e.type;
  }
}
