// Manila in words: the log's sentences and each legal command as steps on the board.
const SEAT_COSTS = { jade: [3, 4, 5, 5], silk: [3, 4, 5], nutmeg: [2, 3, 4], ginseng: [1, 2, 3] };
const TRACK = [0, 5, 10, 20, 30];
const GOODS = ["jade", "silk", "nutmeg", "ginseng"];
const PLACES = {
  pirate: "a pirate's seat", small_pilot: "the small pilot", big_pilot: "the big pilot", insurance: "the insurance",
  harbour_a: "harbour A", harbour_b: "harbour B", harbour_c: "harbour C", shipyard_a: "shipyard A", shipyard_b: "shipyard B", shipyard_c: "shipyard C",
};
const PLACE_COST = { pirate: 5, small_pilot: 2, big_pilot: 5, insurance: 0, harbour_a: 4, harbour_b: 3, harbour_c: 2, shipyard_a: 4, shipyard_b: 3, shipyard_c: 2 };
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1]);
const pesos = (n) => `${n} peso${n === 1 ? "" : "s"}`;

function boatOf(view, good) {
  return view.boats.find((b) => b.good === good);
}

/** A legal command as the steps a player takes on the board. */
export function path(command, view, ctx) {
  const c = command;
  switch (c.type) {
    case "Bid": {
      // A bid above one's cash is paid by pledging shares (12 pesos each): say so before it is made.
      const me = ctx.viewer === null || ctx.viewer === undefined ? null : view.players[ctx.viewer];
      const short = me ? c.amount - me.cash : 0;
      const warn = short > 0 ? ` — ${pesos(short)} more than your cash: you pledge ${Math.ceil(short / 12)} share${Math.ceil(short / 12) === 1 ? "" : "s"} to pay` : "";
      return [{ key: "bid", num: c.amount, label: `Bid ${pesos(c.amount)}${warn}` }];
    }
    case "PassBid":
      return [{ key: "pass", label: "Pass" }];
    case "BuyShare": {
      const price = Math.max(5, TRACK[view.market[GOODS.indexOf(c.good)]]);
      return [{ key: `share:${c.good}`, label: `Buy a ${c.good} share (${pesos(price)})` }];
    }
    case "SkipShare":
      return [{ key: "skip", label: "Buy no share" }];
    case "LoadBoats": {
      const goods = GOODS.filter((g) => g !== c.left_ashore);
      return [{ key: `ashore:${c.left_ashore}`, label: `Leave ${c.left_ashore} ashore` },
        ...c.starts.map((p, r) => ({ key: `start:${r}:${p}`, label: `${goods[r]} starts on field ${p}` }))];
    }
    case "PlaceAccomplice": {
      const boat = boatOf(view, c.field);
      if (boat) {
        const free = boat.seats.findIndex((s) => s === null);
        const cost = SEAT_COSTS[c.field][free < 0 ? 0 : free];
        return [{ key: `boat:${c.field}`, label: `Board the ${c.field} boat (${pesos(cost)})` }];
      }
      const cost = PLACE_COST[c.field];
      return [{ key: c.field, label: c.field === "insurance" ? "Take the insurance (+10 pesos)" : `Take ${PLACES[c.field] || c.field} (${pesos(cost)})` }];
    }
    case "PassPlacement":
      return [{ key: "pass", label: "Place nothing" }];
    case "MoveBoats":
      return c.moves.map((m) => {
        const boat = boatOf(view, m.good);
        const to = Math.max(0, Math.min(14, boat.position + m.steps));
        return { key: `field:${m.good}:${to}`, label: `the ${m.good} boat ${m.steps > 0 ? "forward" : "back"} ${Math.abs(m.steps)} to ${to === 14 ? "the harbour" : "field " + to}` };
      });
    case "PassPilot":
      return [{ key: "pass", label: "Move no boat" }];
    case "BoardBoat": {
      const steps = [{ key: `boat:${c.good}`, label: `Board the ${c.good} boat as a pirate` }];
      if (c.displace !== null && c.displace !== undefined) steps.push({ key: `displace:${c.displace}`, label: `sending ${ctx.people.name(c.displace)}'s accomplice home` });
      return steps;
    }
    case "StayAboard":
      return [{ key: "stay", label: "Stay on the pirate boat" }];
    case "SendPlunderedBoat":
      return [{ key: `dock:${c.to}`, label: `Send the plundered ${c.good} boat to the ${c.to}` }];
    case "TakeLoan":
      return [{ key: `loan:${c.good}`, label: `Pledge a ${c.good} share (+12)` }];
    case "RepayLoan":
      return [{ key: `repay:${c.good}`, label: `Repay the ${c.good} loan (−15)` }];
    default:
      return [{ key: c.type, label: c.type }];
  }
}

// The log follows the boats itself: dice and pilots move them, and a sentence says where they land.
let positions = {};
let order = [];

/** An event as a sentence (a list of strings and name chips), or null to leave it out. */
export function describe(e, ctx) {
  const who = (s) => ctx.people.who(s);
  switch (e.type) {
    case "GameStarted":
      positions = {};
      order = [];
      return [`A game of Manila for ${e.seats} begins`, e.variant_boarding ? " (boarding variant)" : "", "."];
    case "SharesDealt": {
      const mine = ctx.viewer !== null && ctx.viewer !== undefined ? e.hands[ctx.viewer] : null;
      if (e.hands.every((h) => h)) return ["Shares dealt: ", e.hands.flatMap((h, s) => [s ? "; " : "", who(s), " ", list(h)])];
      return mine ? `Each merchant gets ${mine.length} shares face down; yours: ${list(mine)}.` : "Each merchant gets two shares face down.";
    }
    case "VoyageStarted":
      return `Voyage ${e.voyage} begins.`;
    case "BidPlaced":
      return [who(e.seat), ` bids ${pesos(e.amount)}.`];
    case "BidPassed":
      return [who(e.seat), " passes."];
    case "HarbourMasterChosen":
      return [who(e.seat), ` becomes harbour master for ${pesos(e.price)}.`];
    case "LoanTaken":
      return [who(e.seat), ` pledges ${e.good ? "a " + e.good : "a"} share for 12 pesos`, e.forced ? " (to pay)." : "."];
    case "LoanRepaid":
      return [who(e.seat), ` repays ${e.good ? "the " + e.good : "a"} loan for 15 pesos.`];
    case "ShareBought":
      return [who(e.seat), ` buys a ${e.good} share for ${pesos(e.price)}.`];
    case "ShareSkipped":
      return [who(e.seat), " buys no share."];
    case "BoatsLoaded": {
      order = e.goods;
      e.goods.forEach((g, i) => (positions[g] = e.starts[i]));
      const ashore = GOODS.filter((g) => !e.goods.includes(g));
      return `The boats set out: ${list(e.goods.map((g, i) => `${g} on field ${e.starts[i]}`))}; ${list(ashore)} stays ashore.`;
    }
    case "AccomplicePlaced": {
      const where = GOODS.includes(e.field) ? `boards the ${e.field} boat` : `takes ${PLACES[e.field] || e.field}`;
      const money = e.received ? ` and receives ${pesos(e.received)}` : e.paid ? ` for ${pesos(e.paid)}` : "";
      return [who(e.seat), ` ${where}${money}${e.stowaway ? " as a stowaway" : ""}.`];
    }
    case "PlacementPassed":
      return [who(e.seat), " places nothing."];
    case "BoatsPiloted":
      return [who(e.seat), ` (${e.pilot} pilot) moves `, list(e.moves.map((m) => {
        positions[m.good] = Math.max(0, Math.min(14, (positions[m.good] || 0) + m.steps));
        return `the ${m.good} boat ${m.steps > 0 ? "forward" : "back"} ${Math.abs(m.steps)} to ${positions[m.good] > 13 ? "the harbour" : "field " + positions[m.good]}`;
      })), "."];
    case "PilotPassed":
      return [who(e.seat), ` (${e.pilot} pilot) moves no boat.`];
    case "DiceRolled":
      return [`Roll ${e.roll}: `, list(e.values.map((v, i) => {
        const g = order[i];
        if (!g) return String(v);
        const from = positions[g] || 0;
        if (from > 13) return `the ${g} boat is in port`;
        positions[g] = Math.min(14, from + v);
        return `the ${g} boat moves ${v} to ${positions[g] > 13 ? "the harbour" : "field " + positions[g]}`;
      })), "."];
    case "PirateBoarded":
      return [who(e.seat), ` boards the ${e.good} boat as a pirate`, e.displaced !== null && e.displaced !== undefined ? [", sending ", who(e.displaced), " home"] : "", "."];
    case "PirateStayed":
      return [who(e.seat), " stays on the pirate boat."];
    case "BoatPlundered":
      return `Pirates plunder the ${e.good} boat.`;
    case "PlunderedBoatSent":
      return [who(e.seat), ` sends the ${e.good} boat to the ${e.to}.`];
    case "BoatsBerthed": {
      const parts = [];
      if (e.harbour.length) parts.push(`${list(e.harbour)} reach${e.harbour.length === 1 ? "es" : ""} the harbour`);
      if (e.shipyard.length) parts.push(`${list(e.shipyard)} end${e.shipyard.length === 1 ? "s" : ""} in the shipyard`);
      return parts.length ? cap(parts.join("; ")) + "." : null;
    }
    case "Payout": {
      const why = e.reason.startsWith("cargo_") ? `as crew of the ${e.reason.slice(6)} boat` : `for ${PLACES[e.reason] || e.reason}`;
      return [who(e.seat), ` receives ${pesos(e.amount)} ${why}.`];
    }
    case "InsuranceClaimPaid":
      return [who(e.agent), ` (insurance) pays ${pesos(e.by_agent)}`, e.to_seat !== null && e.to_seat !== undefined ? [" to ", who(e.to_seat)] : "", ` for ${PLACES[e.field] || e.field}`, e.by_office ? ` (the office adds ${e.by_office})` : "", "."];
    case "MarketRose":
      return e.goods.length ? `On the black market ${list(e.goods)} rise${e.goods.length === 1 ? "s" : ""}.` : null;
    case "GameEnded":
      return "A good reached 30 on the black market: the game ends.";
    default:
      return e.type;
  }
}

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
