// Manila in words: the log's sentences and each legal command as steps on the board (texts in
// static/i18n, the German rulebook's own words: Kahn, Komplize, Lotse, Hafenmeister, Anteilschein, Werft).
import { t, tNodes } from "../i18n.js";

const SEAT_COSTS = { jade: [3, 4, 5, 5], silk: [3, 4, 5], nutmeg: [2, 3, 4], ginseng: [1, 2, 3] };
const TRACK = [0, 5, 10, 20, 30];
const GOODS = ["jade", "silk", "nutmeg", "ginseng"];
const PLACES = {
  pirate: t("manila.place.pirate"), small_pilot: t("manila.place.small_pilot"), big_pilot: t("manila.place.big_pilot"), insurance: t("manila.place.insurance"),
  harbour_a: t("manila.place.harbour_a"), harbour_b: t("manila.place.harbour_b"), harbour_c: t("manila.place.harbour_c"),
  shipyard_a: t("manila.place.shipyard_a"), shipyard_b: t("manila.place.shipyard_b"), shipyard_c: t("manila.place.shipyard_c"),
};
const GOOD_NAMES = { jade: t("manila.good.jade"), silk: t("manila.good.silk"), nutmeg: t("manila.good.nutmeg"), ginseng: t("manila.good.ginseng") };
const PILOTS = { small: t("manila.pilot.small"), big: t("manila.pilot.big") };
const DOCKS = { harbour: t("manila.dock.harbour"), shipyard: t("manila.dock.shipyard") };
const good = (g) => GOOD_NAMES[g] || g;
/** Where a boat ends: the harbour, or a field. */
const dest = (to) => (to > 13 ? t("manila.to_harbour") : t("manila.to_field", { n: to }));
/** A boat moved forward or back by `steps` to field `to` (a pilot's move). */
const moved = (g, steps, to) => t(steps > 0 ? "manila.boat_forward" : "manila.boat_back", { good: good(g), n: Math.abs(steps), to: dest(to) });
const PLACE_COST = { pirate: 5, small_pilot: 2, big_pilot: 5, insurance: 0, harbour_a: 4, harbour_b: 3, harbour_c: 2, shipyard_a: 4, shipyard_b: 3, shipyard_c: 2 };
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " " + t("list.and") + " " + items[items.length - 1]);
const pesos = (n) => t(n === 1 ? "manila.peso" : "manila.pesos", { n });

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
      const shares = Math.ceil(short / 12);
      const warn = short > 0 ? ` — ${t(shares === 1 ? "manila.bid_warn_one" : "manila.bid_warn", { more: pesos(short), n: shares })}` : "";
      return [{ key: "bid", num: c.amount, label: t("manila.bid", { amount: pesos(c.amount) }) + warn }];
    }
    case "PassBid":
      return [{ key: "pass", label: t("manila.pass") }];
    case "BuyShare": {
      const price = Math.max(5, TRACK[view.market[GOODS.indexOf(c.good)]]);
      return [{ key: `share:${c.good}`, label: t("manila.buy_share", { good: good(c.good), price: pesos(price) }) }];
    }
    case "SkipShare":
      return [{ key: "skip", label: t("manila.skip_share") }];
    case "LoadBoats": {
      const goods = GOODS.filter((g) => g !== c.left_ashore);
      return [{ key: `ashore:${c.left_ashore}`, label: t("manila.leave_ashore", { good: good(c.left_ashore) }) },
        ...c.starts.map((p, r) => ({ key: `start:${r}:${p}`, label: t("manila.starts_on", { good: good(goods[r]), n: p }) }))];
    }
    case "PlaceAccomplice": {
      const boat = boatOf(view, c.field);
      if (boat) {
        const free = boat.seats.findIndex((s) => s === null);
        const cost = SEAT_COSTS[c.field][free < 0 ? 0 : free];
        return [{ key: `boat:${c.field}`, label: t("manila.board_boat", { good: good(c.field), cost: pesos(cost) }) }];
      }
      const cost = PLACE_COST[c.field];
      return [{ key: c.field, label: c.field === "insurance" ? t("manila.take_insurance") : t("manila.take_place", { place: PLACES[c.field] || c.field, cost: pesos(cost) }) }];
    }
    case "PassPlacement":
      return [{ key: "pass", label: t("manila.place_nothing") }];
    case "MoveBoats":
      return c.moves.map((m) => {
        const boat = boatOf(view, m.good);
        const to = Math.max(0, Math.min(14, boat.position + m.steps));
        return { key: `field:${m.good}:${to}`, label: moved(m.good, m.steps, to) };
      });
    case "PassPilot":
      return [{ key: "pass", label: t("manila.move_none") }];
    case "BoardBoat": {
      const steps = [{ key: `boat:${c.good}`, label: t("manila.board_pirate", { good: good(c.good) }) }];
      if (c.displace !== null && c.displace !== undefined) steps.push({ key: `displace:${c.displace}`, label: t("manila.displace", { name: ctx.people.name(c.displace) }) });
      return steps;
    }
    case "StayAboard":
      return [{ key: "stay", label: t("manila.stay") }];
    case "SendPlunderedBoat":
      return [{ key: `dock:${c.to}`, label: t("manila.send_plundered", { good: good(c.good), to: DOCKS[c.to] || c.to }) }];
    case "TakeLoan":
      return [{ key: `loan:${c.good}`, label: t("manila.pledge", { good: good(c.good) }) }];
    case "RepayLoan":
      return [{ key: `repay:${c.good}`, label: t("manila.repay", { good: good(c.good) }) }];
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
      return t(e.variant_boarding ? "manila.log.start_variant" : "manila.log.start", { n: e.seats });
    case "SharesDealt": {
      const mine = ctx.viewer !== null && ctx.viewer !== undefined ? e.hands[ctx.viewer] : null;
      if (e.hands.every((h) => h)) return [t("manila.log.dealt"), " ", e.hands.flatMap((h, s) => [s ? "; " : "", who(s), " ", list(h.map(good))])];
      return mine ? t("manila.log.dealt_yours", { n: mine.length, list: list(mine.map(good)) }) : t("manila.log.dealt_hidden");
    }
    case "VoyageStarted":
      return t("manila.log.voyage", { n: e.voyage });
    case "BidPlaced":
      return tNodes("manila.log.bid", { who: who(e.seat), amount: pesos(e.amount) });
    case "BidPassed":
      return tNodes("manila.log.pass", { who: who(e.seat) });
    case "HarbourMasterChosen":
      return tNodes("manila.log.harbour_master", { who: who(e.seat), price: pesos(e.price) });
    case "LoanTaken":
      return [tNodes(e.good ? "manila.log.loan" : "manila.log.loan_any", { who: who(e.seat), good: good(e.good) }), e.forced ? ` (${t("manila.log.to_pay")}).` : "."];
    case "LoanRepaid":
      return tNodes(e.good ? "manila.log.repay" : "manila.log.repay_any", { who: who(e.seat), good: good(e.good) });
    case "ShareBought":
      return tNodes("manila.log.share", { who: who(e.seat), good: good(e.good), price: pesos(e.price) });
    case "ShareSkipped":
      return tNodes("manila.log.no_share", { who: who(e.seat) });
    case "BoatsLoaded": {
      order = e.goods;
      e.goods.forEach((g, i) => (positions[g] = e.starts[i]));
      const ashore = GOODS.filter((g) => !e.goods.includes(g));
      return t("manila.log.loaded", { boats: list(e.goods.map((g, i) => t("manila.log.on_field", { good: good(g), n: e.starts[i] }))), ashore: list(ashore.map(good)) });
    }
    case "AccomplicePlaced": {
      const where = GOODS.includes(e.field) ? t("manila.log.boards", { good: good(e.field) }) : t("manila.log.takes", { place: PLACES[e.field] || e.field });
      const money = e.received ? t("manila.log.receives", { amount: pesos(e.received) }) : e.paid ? t("manila.log.for", { what: pesos(e.paid) }) : "";
      const what = [where, money, e.stowaway ? t("manila.log.stowaway") : ""].filter(Boolean).join(" ");
      return tNodes("manila.log.placed", { who: who(e.seat), what });
    }
    case "PlacementPassed":
      return tNodes("manila.log.placed_nothing", { who: who(e.seat) });
    case "BoatsPiloted":
      return tNodes("manila.log.piloted", { who: who(e.seat), pilot: PILOTS[e.pilot] || e.pilot, moves: list(e.moves.map((m) => {
        positions[m.good] = Math.max(0, Math.min(14, (positions[m.good] || 0) + m.steps));
        return moved(m.good, m.steps, positions[m.good]);
      })) });
    case "PilotPassed":
      return tNodes("manila.log.pilot_passed", { who: who(e.seat), pilot: PILOTS[e.pilot] || e.pilot });
    case "DiceRolled":
      return [t("manila.log.roll", { n: e.roll }), " ", list(e.values.map((v, i) => {
        const g = order[i];
        if (!g) return String(v);
        const from = positions[g] || 0;
        if (from > 13) return t("manila.log.in_port", { good: good(g) });
        positions[g] = Math.min(14, from + v);
        return t("manila.log.rolled", { good: good(g), n: v, to: dest(positions[g]) });
      })), "."];
    case "PirateBoarded":
      return e.displaced !== null && e.displaced !== undefined ? tNodes("manila.log.pirate_displaced", { who: who(e.seat), good: good(e.good), other: who(e.displaced) }) : tNodes("manila.log.pirate", { who: who(e.seat), good: good(e.good) });
    case "PirateStayed":
      return tNodes("manila.log.pirate_stayed", { who: who(e.seat) });
    case "BoatPlundered":
      return t("manila.log.plundered", { good: good(e.good) });
    case "PlunderedBoatSent":
      return tNodes("manila.log.sent", { who: who(e.seat), good: good(e.good), to: DOCKS[e.to] || e.to });
    case "BoatsBerthed": {
      const parts = [];
      if (e.harbour.length) parts.push(t(e.harbour.length === 1 ? "manila.log.reaches_harbour" : "manila.log.reach_harbour", { goods: list(e.harbour.map(good)) }));
      if (e.shipyard.length) parts.push(t(e.shipyard.length === 1 ? "manila.log.ends_shipyard" : "manila.log.end_shipyard", { goods: list(e.shipyard.map(good)) }));
      return parts.length ? cap(parts.join("; ")) + "." : null;
    }
    case "Payout": {
      const why = e.reason.startsWith("cargo_") ? t("manila.log.as_crew", { good: good(e.reason.slice(6)) }) : t("manila.log.for", { what: PLACES[e.reason] || e.reason });
      return tNodes("manila.log.payout", { who: who(e.seat), amount: pesos(e.amount), why });
    }
    case "InsuranceClaimPaid":
      return [who(e.agent), " ", t("manila.log.insurance_pays", { amount: pesos(e.by_agent) }), e.to_seat !== null && e.to_seat !== undefined ? [" ", t("manila.log.to"), " ", who(e.to_seat)] : "",
        " ", t("manila.log.for", { what: PLACES[e.field] || e.field }), e.by_office ? ` (${t("manila.log.office_adds", { n: e.by_office })})` : "", "."];
    case "MarketRose":
      return e.goods.length ? t(e.goods.length === 1 ? "manila.log.rises" : "manila.log.rise", { goods: list(e.goods.map(good)) }) : null;
    case "GameEnded":
      return t("manila.log.end");
    default:
      return e.type;
  }
}

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
