// East India Companies in words: the log's sentences and each legal command as steps on the board.
import { MARKET_CARDS } from "./eic-cards.js";
import { MARKETS } from "./eic-markets.js";
export const GOODS = ["tea", "spices", "coffee", "silk"];
export const ZONES = ["China", "Southeast Asia", "India"];
export const SPACES = [
  ["GOV_INFLUENCE_FE", "Governor", "Far East influence"], ["GOV_TRADING_POST", "Governor", "a trading post"],
  ["SHP_SHIP", "Shipowner", "a new ship"], ["SHP_HARBOUR_EXT", "Shipowner", "a harbour extension"],
  ["INV_SHIP", "Investor", "a ship"], ["INV_INFLUENCE_EU", "Investor", "European influence"],
  ["MER_TRADE_SPICES", "Merchant", "spices trade"], ["MER_TRADE_COFFEE", "Merchant", "coffee trade"], ["MER_TRADE_SILK", "Merchant", "silk trade"],
  ["CAP_EXPERTISE", "Captain", "expertise"], ["CAP_CARTOGRAPHY", "Captain", "cartography"],
];
// "the Governor's trading post", not "the Governor's a trading post"
const SPACE = { ...Object.fromEntries(SPACES.map(([id, who, what]) => [id, `the ${who}'s ${what.replace(/^an? /, "")}`])), central: "the central zone" };
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1]);
const gs = (n) => `${n} GS`;
// The ships one may buy: epoch, cost, speed, tonnage (domain/eic/data.py SHIP_TYPES, PROPOSED values;
// kept in step by hand, as tests/browser/test_card_names.py checks).
export const SHIPS = { SH1: [1, 5, 2, 3], SH2: [1, 6, 1, 5], SH3: [2, 8, 3, 3], SH4: [2, 9, 2, 5], SH5: [3, 11, 4, 3], SH6: [3, 12, 2, 7], SH7: [4, 14, 4, 5], SH8: [4, 16, 3, 7] };
const shipOffer = (kind) => {
  const ship = SHIPS[kind];
  return ship ? `ship ${kind.slice(2)}: ${gs(ship[1])}, speed ${ship[2]}, tonnage ${ship[3]}` : kind;
};
/** What an envoy on a space costs: 1 GS to each envoy already there, and the ability's own price. */
export function envoyCost(view, space, ship) {
  const index = SPACES.findIndex((s) => s[0] === space);
  const fees = index < 0 ? 0 : (view.occupants[index] || []).length;
  const ability = ship && SHIPS[ship] ? SHIPS[ship][1] : space === "GOV_TRADING_POST" ? 3 : space === "CAP_EXPERTISE" ? view.epoch : 0;
  return { fees, ability };
}
const costText = ({ fees, ability }) => {
  const parts = [fees ? `${gs(fees)} in fees` : "", ability ? `${gs(ability)} for the ability` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join(" + ")})` : "";
};

export function goods(amounts) {
  const parts = (amounts || []).map((n, i) => (n ? `${n} ${GOODS[i]}` : "")).filter(Boolean);
  return parts.length ? list(parts) : "nothing";
}

/** A market card by what it prints: "Far East card (deck 1): 2 tea and 1 spices; +1 tea with 4 players". */
export function marketCard(id) {
  const card = MARKET_CARDS[id];
  if (!card) return `Market card ${id}`;
  const signed = (amounts) => list(amounts.map((n, i) => (n ? `${n > 0 ? n : "−" + -n} ${GOODS[i]}` : "")).filter(Boolean)) || "nothing";
  const market = card.market === "europe" ? "European" : "Far East";
  const extra = card.extra.some((n) => n) ? `; +${signed(card.extra)} with 4 players` : "";
  return `${market} card (deck ${card.deck}): ${signed(card.base)}${extra}`;
}

export function shipName(id, ctx) {
  if (!id) return "a face-down ship";
  const [owner, kind] = id.split(":");
  const seated = /^\d+$/.test(owner) && Number(owner) < ctx.people.names.length; // 2 players: the neutral is seat 2
  const whose = seated ? `${ctx.people.name(Number(owner))}'s ` : "the neutral company's ";
  return `${whose}${kind.startsWith("G") ? "galleon" : "ship " + kind.slice(2)}`;
}

/** Goods amounts as one number step per good that can be non-zero (`most[i]` > 0), in the goods'
 * order; a decision with no such good is one plain step. */
function amounts(prefix, chosen, most, label, none, least = false) {
  const steps = [];
  GOODS.forEach((good, i) => {
    if (most[i] > 0) steps.push({ key: `${prefix}:${good}`, num: chosen[i], label: label(chosen[i], good, steps.length), least });
  });
  return steps.length ? steps : [{ key: `${prefix}:none`, label: none }];
}

/** The ship first on the loading track (the one loading now) and the goods its zone sells. */
export function loadingHead(view) {
  const id = (view.queue || [])[0];
  const ship = id && view.players.flatMap((p) => p.ships).find((s) => s.id === id);
  return { id, zone: ship ? ship.zone : 0 };
}

const ZONE_SITES = [["Canton", "Macao", "Formosa"], ["Batavia", "Malacca"], ["Bombay", "Madras", "Calcutta"]];
// The zones' goods: tea everywhere, and silk in China, coffee in Southeast Asia, spices in India.
const ZONE_GOOD = [3, 2, 1];

function loadable(view) {
  const { zone } = loadingHead(view);
  return GOODS.map((_, g) => (g === 0 || g === ZONE_GOOD[zone - 1] ? view.far_east[g] : 0));
}

/** What `n` cubes of good `g` cost the viewer now: each from the cheapest filled Far East space, 1 less
 * with a trading post in the loading zone, never below 0 (domain/eic/state.py purchase_cost). */
function loadCost(view, g, n) {
  const prices = MARKETS.far_east[view.seats === 4 ? "4" : "3"][g];
  const zone = loadingHead(view).zone;
  const discount = view.players[view.seat].posts.some((site) => (ZONE_SITES[zone - 1] || []).includes(site)) ? 1 : 0;
  let total = 0;
  for (let k = 0; k < n; k++) total += Math.max(0, prices[view.far_east[g] - 1 - k] - discount);
  return total;
}

function loadingShip(view, ctx) {
  const { id } = loadingHead(view);
  return { key: `ship:${id}`, label: `Load ${shipName(id, ctx)}` };
}

const companyOf = (c, ctx) => (c < ctx.people.names.length ? `${ctx.people.name(c)}'s company` : "the neutral company");

/** A legal command as the steps a player takes on the board. */
export function path(c, view, ctx) {
  switch (c.type) {
    case "PlaceEnvoy": {
      // The space's step names what it costs before paying; a new ship's step its cost, speed, tonnage.
      const cost = envoyCost(view, c.space, null);
      const shipPrice = c.ship ? " + the ship's price" : "";
      const steps = [{ key: `space:${c.space}`, label: `Send an envoy to ${SPACE[c.space] || c.space}${c.space === "central" ? "" : costText(cost) + shipPrice}` }];
      if (c.site) steps.push({ key: `site:${c.site}`, label: `a trading post in ${c.site}` });
      if (c.ship) steps.push({ key: `ship:${c.ship}`, label: `taking ${shipOffer(c.ship)}` });
      if (c.discard) steps.push({ key: `discard:${c.discard}`, label: `giving up ${shipName(c.discard, ctx)}` });
      if (c.envoy) steps.push({ key: `envoy:${c.envoy}`, label: `envoy ${c.envoy + 1}` });
      return steps;
    }
    case "RecallEnvoy":
      return [{ key: `recall:${c.envoy}`, label: `Recall envoy ${c.envoy + 1}` }];
    case "BuyShare":
      return [{ key: `company:${c.company}`, label: `Buy a share of ${companyOf(c.company, ctx)} (${view.share_values[c.company]} GS)` }];
    case "SellShares":
      return [{ key: `company:${c.company}`, label: `Sell shares of ${companyOf(c.company, ctx)}` }, { key: "sell", num: c.count, label: `sell ${c.count}` }];
    case "RedeemStartShare":
      return [{ key: "redeem", label: "Redeem your pledged start share" }];
    case "PledgeStartShare":
      return [{ key: "pledge", label: "Pledge your start share" }];
    case "Pass":
      return [{ key: "pass", label: "Pass" }];
    case "ChooseMarketCard":
      return [{ key: `card:${c.card}`, label: marketCard(c.card) }];
    case "SendShip":
      return [{ key: `ship:${c.ship}`, label: `Send ${shipName(c.ship, ctx)}` }, { key: `zone:${c.zone}`, label: `to ${ZONES[c.zone - 1] || "zone " + c.zone}` }];
    case "LoadShip": {
      const cost = (n, good) => (n ? ` (${gs(loadCost(view, GOODS.indexOf(good), n))})` : "");
      return [loadingShip(view, ctx), ...amounts("load", c.goods, loadable(view), (n, good, i) => `${i ? "" : "Load "}${n} ${good}${cost(n, good)}`, "Load nothing")];
    }
    case "LeaveShipInFarEast":
      return [loadingShip(view, ctx), { key: "stay", label: "Leave it in the Far East for the next epoch (1 GS)" }];
    case "SellFromWarehouse": {
      const stored = view.players[view.seat].warehouse;
      return [{ key: `warehouse:${view.seat}`, label: "Sell from your warehouse" }, ...amounts("wsell", c.goods, stored, (n, good) => `sell ${n} ${good}`, "sell nothing")];
    }
    case "UnloadShip": {
      const ship = view.players[view.seat].ships.find((s) => s.id === c.ship);
      const cargo = ship ? ship.cargo : c.store;
      return [{ key: `ship:${c.ship}`, label: `Unload ${shipName(c.ship, ctx)}` },
        ...amounts("store", c.store, cargo, (n, good) => `store ${n} ${good} (sell ${cargo[GOODS.indexOf(good)] - n})`, "sell everything", true)];
    }
    default:
      return [{ key: c.type, label: c.type }];
  }
}

/** An event as a sentence (a list of strings and name chips), or null to leave it out. */
export function describe(e, ctx) {
  const seated = (s) => typeof s === "number" && s >= 0 && s < ctx.people.names.length;
  const who = (s) => (seated(s) ? ctx.people.who(s) : "The neutral company");
  const company = (c) => (seated(c) ? [ctx.people.who(c), "'s company"] : "the neutral company");
  switch (e.type) {
    case "GameSetUp":
      return `A game of East India Companies for ${e.seats} begins.`;
    case "EpochBegan":
      return `Epoch ${e.epoch} begins.`;
    case "TurnBegan":
    case "PhaseBegan":
      return null;
    case "EnvoyPlaced":
      return [who(e.player), ` sends an envoy to ${SPACE[e.space] || e.space}`, e.site ? ` (trading post in ${e.site})` : "", e.cost ? ` for ${gs(e.cost)}` : "", "."];
    case "EnvoyRecalled":
      return [who(e.player), " recalls an envoy."];
    case "NeutralEnvoysPlaced":
      return "The neutral envoys take their places.";
    case "InitiativeChanged":
      return ["Turn order: ", e.initiative.flatMap((s, i) => [i ? ", " : "", who(s)]), "."];
    case "SharesSold":
      return [who(e.player), ` sells ${e.count} share${e.count === 1 ? "" : "s"} of `, company(e.company), ` for ${gs(e.price)}.`];
    case "StartSharePledged":
      return [who(e.player), ` pledges the start share for ${gs(e.amount)}.`];
    case "StartShareRedeemed":
      return [who(e.player), ` redeems the start share for ${gs(e.price)}.`];
    case "ShareBought":
      return [who(e.player), " buys a share of ", company(e.company), ` for ${gs(e.price)}.`];
    case "Passed":
      return [who(e.player), " passes."];
    case "MarketCardChosen":
      return [who(e.player), ` chooses the ${e.market === "europe" ? "European" : "Far East"} market card.`];
    case "MarketCardsDrawn":
      return "The market cards are drawn.";
    case "ShipSent":
      return [who(e.player), ` sends ${e.ship ? shipName(e.ship, ctx) : "a ship"} to ${ZONES[e.zone - 1] || "zone " + e.zone}`, e.cost ? ` for ${gs(e.cost)}` : "", "."];
    case "FarEastSupplied":
      return `Goods arrive in the Far East: ${goods(e.added)}.`;
    case "ShipsRevealed":
      return `The ships in ${ZONES[e.zone - 1] || "zone " + e.zone} are turned face up.`;
    case "ShipLoaded":
      return [who(e.player), ` loads ${goods(e.goods)}`, e.cost ? ` for ${gs(e.cost)}` : "", "."];
    case "ShipLeftInFarEast":
      return [who(e.player), " leaves a ship in the Far East."];
    case "EuropeDemanded":
      return `Europe buys up ${goods(e.removed)}.`;
    case "GoodsSold":
      return [who(e.player), ` sells ${goods(e.sold)}`, e.stored.some(Boolean) ? ` and stores ${goods(e.stored)}` : "", ` (income ${e.income}).`];
    case "EpochEnded":
      return `Epoch ${e.epoch} ends: income, growth and dividends are paid.`;
    case "GameEnded":
      return "The fifth epoch is over: the game ends.";
    default:
      return e.type;
  }
}
