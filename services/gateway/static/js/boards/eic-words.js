// East India Companies in words: the log's sentences and each legal command as steps on the board.
import { el } from "../dom.js";
import { t, tNodes } from "../i18n.js";
import { MARKET_CARDS } from "./eic-cards.js";
import { MARKETS } from "./eic-markets.js";
export const GOODS = ["tea", "spices", "coffee", "silk"];
export const ZONES = [t("eic.zone.china"), t("eic.zone.southeast_asia"), t("eic.zone.india")];
/** The goods by name, in the order of GOODS (which names them in keys and data). */
export const GOOD_WORDS = [t("eic.good.tea"), t("eic.good.spices"), t("eic.good.coffee"), t("eic.good.silk")];
const good = (g) => GOOD_WORDS[GOODS.indexOf(g)] || g;
export const SPACES = [
  ["GOV_INFLUENCE_FE", t("eic.governor"), t("eic.ability.influence_fe")], ["GOV_TRADING_POST", t("eic.governor"), t("eic.ability.trading_post")],
  ["SHP_SHIP", t("eic.shipowner"), t("eic.ability.new_ship")], ["SHP_HARBOUR_EXT", t("eic.shipowner"), t("eic.ability.harbour_ext")],
  ["INV_SHIP", t("eic.investor"), t("eic.ability.ship")], ["INV_INFLUENCE_EU", t("eic.investor"), t("eic.ability.influence_eu")],
  ["MER_TRADE_SPICES", t("eic.merchant"), t("eic.ability.spices")], ["MER_TRADE_COFFEE", t("eic.merchant"), t("eic.ability.coffee")], ["MER_TRADE_SILK", t("eic.merchant"), t("eic.ability.silk")],
  ["CAP_EXPERTISE", t("eic.captain"), t("eic.ability.expertise")], ["CAP_CARTOGRAPHY", t("eic.captain"), t("eic.ability.cartography")],
];
// A space in a sentence: "the Governor's trading post" (not "the Governor's a trading post").
const SPACE = {
  GOV_INFLUENCE_FE: t("eic.space.gov_influence_fe"), GOV_TRADING_POST: t("eic.space.gov_trading_post"), SHP_SHIP: t("eic.space.shp_ship"),
  SHP_HARBOUR_EXT: t("eic.space.shp_harbour_ext"), INV_SHIP: t("eic.space.inv_ship"), INV_INFLUENCE_EU: t("eic.space.inv_influence_eu"),
  MER_TRADE_SPICES: t("eic.space.mer_spices"), MER_TRADE_COFFEE: t("eic.space.mer_coffee"), MER_TRADE_SILK: t("eic.space.mer_silk"),
  CAP_EXPERTISE: t("eic.space.cap_expertise"), CAP_CARTOGRAPHY: t("eic.space.cap_cartography"), central: t("eic.space.central"),
};
const list = (items) => (items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " " + t("list.and") + " " + items[items.length - 1]);
const gs = (n) => `${n} GS`;
const zoneName = (z) => ZONES[z - 1] || t("eic.zone_n", { n: z });
// The ships one may buy: epoch, cost, speed, tonnage (domain/eic/data.py SHIP_TYPES, PROPOSED values;
// kept in step by hand, as tests/unit/contract/test_web_card_names.py checks).
export const SHIPS = { SH1: [1, 5, 2, 3], SH2: [1, 6, 1, 5], SH3: [2, 8, 3, 3], SH4: [2, 9, 2, 5], SH5: [3, 11, 4, 3], SH6: [3, 12, 2, 7], SH7: [4, 14, 4, 5], SH8: [4, 16, 3, 7] };
const shipOffer = (kind) => {
  const ship = SHIPS[kind];
  return ship ? t("eic.ship_offer", { n: kind.slice(2), cost: gs(ship[1]), speed: ship[2], tonnage: ship[3] }) : kind;
};
/** What an envoy on a space costs: 1 GS to each envoy already there, and the ability's own price. */
export function envoyCost(view, space, ship) {
  const index = SPACES.findIndex((s) => s[0] === space);
  const fees = index < 0 ? 0 : (view.occupants[index] || []).length;
  const ability = ship && SHIPS[ship] ? SHIPS[ship][1] : space === "GOV_TRADING_POST" ? 3 : space === "CAP_EXPERTISE" ? view.epoch : 0;
  return { fees, ability };
}
const costText = ({ fees, ability }) => {
  const parts = [fees ? t("eic.fees", { amount: gs(fees) }) : "", ability ? t("eic.for_ability", { amount: gs(ability) }) : ""].filter(Boolean);
  return parts.length ? ` (${parts.join(" + ")})` : "";
};

export function goods(amounts) {
  const parts = (amounts || []).map((n, i) => (n ? `${n} ${GOOD_WORDS[i]}` : "")).filter(Boolean);
  return parts.length ? list(parts) : t("eic.nothing");
}

/** A market card by what it prints: "Far East card (deck 1): 2 tea and 1 spices; +1 tea with 4 players". */
export function marketCard(id) {
  const card = MARKET_CARDS[id];
  if (!card) return t("eic.market_card", { id });
  const signed = (amounts) => list(amounts.map((n, i) => (n ? `${n > 0 ? n : "−" + -n} ${GOOD_WORDS[i]}` : "")).filter(Boolean)) || t("eic.nothing");
  const extra = card.extra.some((n) => n) ? `; ${t("eic.with_four", { goods: signed(card.extra) })}` : "";
  return t(card.market === "europe" ? "eic.card_europe" : "eic.card_far_east", { deck: card.deck, goods: signed(card.base) }) + extra;
}

export function shipName(id, ctx) {
  if (!id) return t("eic.face_down_ship");
  const [owner, kind] = id.split(":");
  const seated = /^\d+$/.test(owner) && Number(owner) < ctx.people.names.length; // 2 players: the neutral is seat 2
  const ship = kind.startsWith("G") ? t("eic.galleon") : t("eic.ship_n", { n: kind.slice(2) });
  return seated ? t("eic.whose_ship", { name: ctx.people.name(Number(owner)), ship }) : t("eic.neutral_ship", { ship });
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
  return { key: `ship:${id}`, label: t("eic.load_ship", { ship: shipName(id, ctx) }) };
}

const companyOf = (c, ctx) => (c < ctx.people.names.length ? t("eic.company_of", { name: ctx.people.name(c) }) : t("eic.neutral_company"));

/** A legal command as the steps a player takes on the board. */
export function path(c, view, ctx) {
  switch (c.type) {
    case "PlaceEnvoy": {
      // The space's step names what it costs before paying; a new ship's step its cost, speed, tonnage.
      const cost = envoyCost(view, c.space, null);
      const shipPrice = c.ship ? ` + ${t("eic.ship_price")}` : "";
      const steps = [{ key: `space:${c.space}`, label: t("eic.send_envoy", { space: SPACE[c.space] || c.space }) + (c.space === "central" ? "" : costText(cost) + shipPrice) }];
      if (c.site) steps.push({ key: `site:${c.site}`, label: t("eic.post_in", { site: c.site }) });
      if (c.ship) steps.push({ key: `ship:${c.ship}`, label: t("eic.taking", { ship: shipOffer(c.ship) }) });
      if (c.discard) steps.push({ key: `discard:${c.discard}`, label: t("eic.giving_up", { ship: shipName(c.discard, ctx) }) });
      if (c.envoy) steps.push({ key: `envoy:${c.envoy}`, label: t("eic.envoy_n", { n: c.envoy + 1 }) });
      return steps;
    }
    case "RecallEnvoy":
      return [{ key: `recall:${c.envoy}`, label: t("eic.recall", { n: c.envoy + 1 }) }];
    case "BuyShare":
      return [{ key: `company:${c.company}`, label: t("eic.buy_share", { company: companyOf(c.company, ctx), value: view.share_values[c.company] }) }];
    case "SellShares":
      return [{ key: `company:${c.company}`, label: t("eic.sell_shares", { company: companyOf(c.company, ctx) }) }, { key: "sell", num: c.count, label: t("eic.sell_n", { n: c.count }) }];
    case "RedeemStartShare":
      return [{ key: "redeem", label: t("eic.redeem") }];
    case "PledgeStartShare":
      return [{ key: "pledge", label: t("eic.pledge") }];
    case "Pass":
      return [{ key: "pass", label: t("eic.pass") }];
    case "ChooseMarketCard":
      return [{ key: `card:${c.card}`, label: marketCard(c.card) }];
    case "SendShip":
      return [{ key: `ship:${c.ship}`, label: t("eic.send_ship", { ship: shipName(c.ship, ctx) }) }, { key: `zone:${c.zone}`, label: t("eic.to_zone", { zone: zoneName(c.zone) }) }];
    case "LoadShip": {
      const cost = (n, good) => (n ? ` (${gs(loadCost(view, GOODS.indexOf(good), n))})` : "");
      return [loadingShip(view, ctx), ...amounts("load", c.goods, loadable(view), (n, g, i) => `${i ? "" : t("eic.load") + " "}${n} ${good(g)}${cost(n, g)}`, t("eic.load_nothing"))];
    }
    case "LeaveShipInFarEast":
      return [loadingShip(view, ctx), { key: "stay", label: t("eic.leave_far_east") }];
    case "SellFromWarehouse": {
      const stored = view.players[view.seat].warehouse;
      return [{ key: `warehouse:${view.seat}`, label: t("eic.sell_warehouse") }, ...amounts("wsell", c.goods, stored, (n, g) => t("eic.sell_goods", { n, good: good(g) }), t("eic.sell_nothing"))];
    }
    case "UnloadShip": {
      const ship = view.players[view.seat].ships.find((s) => s.id === c.ship);
      const cargo = ship ? ship.cargo : c.store;
      return [{ key: `ship:${c.ship}`, label: t("eic.unload", { ship: shipName(c.ship, ctx) }) },
        ...amounts("store", c.store, cargo, (n, g) => t("eic.store", { n, good: good(g), sold: cargo[GOODS.indexOf(g)] - n }), t("eic.sell_everything"), true)];
    }
    default:
      return [{ key: c.type, label: c.type }];
  }
}

/** An event as a sentence (a list of strings and name chips), or null to leave it out. */
export function describe(e, ctx) {
  const seated = (s) => typeof s === "number" && s >= 0 && s < ctx.people.names.length;
  const who = (s) => (seated(s) ? ctx.people.who(s) : t("eic.the_neutral_company"));
  const company = (c) => (seated(c) ? tNodes("eic.company_of", { name: ctx.people.who(c) }) : t("eic.neutral_company"));
  switch (e.type) {
    case "GameSetUp":
      return t("eic.log.start", { n: e.seats });
    case "EpochBegan":
      return t("eic.log.epoch", { n: e.epoch });
    case "TurnBegan":
    case "PhaseBegan":
      return null;
    case "EnvoyPlaced":
      return [tNodes("eic.log.envoy", { who: who(e.player), space: SPACE[e.space] || e.space }), e.site ? ` (${t("eic.log.post_in", { site: e.site })})` : "", e.cost ? ` ${t("eic.log.for", { amount: gs(e.cost) })}` : "", "."];
    case "EnvoyRecalled":
      return tNodes("eic.log.recall", { who: who(e.player) });
    case "NeutralEnvoysPlaced":
      return t("eic.log.neutral_envoys");
    case "InitiativeChanged":
      return [t("eic.log.order"), " ", e.initiative.flatMap((s, i) => [i ? ", " : "", who(s)]), "."];
    case "SharesSold":
      return tNodes(e.count === 1 ? "eic.log.sold_one" : "eic.log.sold", { who: who(e.player), n: e.count, company: el("span", {}, company(e.company)), price: gs(e.price) });
    case "StartSharePledged":
      return tNodes("eic.log.pledged", { who: who(e.player), amount: gs(e.amount) });
    case "StartShareRedeemed":
      return tNodes("eic.log.redeemed", { who: who(e.player), price: gs(e.price) });
    case "ShareBought":
      return tNodes("eic.log.bought", { who: who(e.player), company: el("span", {}, company(e.company)), price: gs(e.price) });
    case "Passed":
      return tNodes("eic.log.passes", { who: who(e.player) });
    case "MarketCardChosen":
      return tNodes(e.market === "europe" ? "eic.log.card_europe" : "eic.log.card_far_east", { who: who(e.player) });
    case "MarketCardsDrawn":
      return t("eic.log.cards_drawn");
    case "ShipSent":
      return [tNodes("eic.log.sent", { who: who(e.player), ship: e.ship ? shipName(e.ship, ctx) : t("eic.a_ship"), zone: zoneName(e.zone) }), e.cost ? ` ${t("eic.log.for", { amount: gs(e.cost) })}` : "", "."];
    case "FarEastSupplied":
      return t("eic.log.supplied", { goods: goods(e.added) });
    case "ShipsRevealed":
      return t("eic.log.revealed", { zone: zoneName(e.zone) });
    case "ShipLoaded":
      return [tNodes("eic.log.loaded", { who: who(e.player), goods: goods(e.goods) }), e.cost ? ` ${t("eic.log.for", { amount: gs(e.cost) })}` : "", "."];
    case "ShipLeftInFarEast":
      return tNodes("eic.log.left", { who: who(e.player) });
    case "EuropeDemanded":
      return t("eic.log.europe", { goods: goods(e.removed) });
    case "GoodsSold":
      return tNodes(e.stored.some(Boolean) ? "eic.log.sold_stored" : "eic.log.sold_goods", { who: who(e.player), goods: goods(e.sold), stored: goods(e.stored), income: e.income });
    case "EpochEnded":
      return t("eic.log.epoch_end", { n: e.epoch });
    case "GameEnded":
      return t("eic.log.end");
    default:
      return e.type;
  }
}
