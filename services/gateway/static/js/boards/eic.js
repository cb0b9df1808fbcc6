// East India Companies: the Far East with its three sea zones, trading-post sites and the ships there
// (face down for those who may not see them, the loading track in order), the influence spaces with
// their envoys, both markets with their goods, dice and known cards, the stock exchange, and each
// company's port with its docks, ships, cargo and warehouse. The market cards a chooser may pick are
// drawn as cards on the board. Each part is drawn at its own origin and placed by the layout: side by
// side on a wide screen, one column (500 wide, larger type) on a phone, so the board scales to the
// panel and stays readable.
import { el, svg, tip } from "../dom.js";
import { t } from "../i18n.js";
import { MARKET_CARDS } from "./eic-cards.js";
import { MARKETS, STOCK } from "./eic-markets.js";
import { GOOD_WORDS, GOODS, SPACES, ZONES, describe, envoyCost, goods, loadingHead, marketCard, path, shipName } from "./eic-words.js";

const SITES = [["Canton", "Macao", "Formosa"], ["Batavia", "Malacca"], ["Bombay", "Madras", "Calcutta"]];
const CLOSED_SITES = ["Formosa", "Bombay"]; // domain/eic/data.py CLOSED_SITES_FEW_PLAYERS: shut with 2 and 3 players
const GOOD_COLOUR = ["#3a7d44", "#b03a2e", "#6e4b2a", "#8e5ba8"];
const EPOCHS = ["1700–1750", "1750–1800", "1800–1850", "1850–1900", "1900–1950"];
const START_SHARES = 2; // domain/eic/data.py START_SHARES
const ROMAN = ["", "I", "II", "III"];
const NARROW = "(max-width: 700px)";
const MARKET_ZOOM = 1.6; // a market on a phone: larger, one above the other
const MARKET_STEP = 276; // its height then (166 × 1.6) and the gap under it
const PHASES = { A: t("eic.phase.a"), B: t("eic.phase.b"), C: t("eic.phase.c"), D: t("eic.phase.d"), E: t("eic.phase.e"), U: t("eic.phase.u"),
  F: t("eic.phase.f"), epoch_over: t("eic.phase.f") };
const LETTER = { U: "E", epoch_over: "F" };

const at = (x, y, ...children) => svg("g", { transform: `translate(${x},${y})` }, ...children);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

function shipIcon(x, y, fill, label, hover, key) {
  return svg("g", { class: "target ship-icon", "data-target": key },
    svg("rect", { x: x - 18, y: y - 20, width: 36, height: 34, rx: 6, class: "hit" }),
    svg("path", { d: `M${x - 16},${y} L${x + 16},${y} L${x + 10},${y + 12} L${x - 10},${y + 12} Z M${x - 1},${y} L${x - 1},${y - 18} L${x + 12},${y - 4} Z`, fill, stroke: "#fff", "stroke-width": 1.5 }),
    label ? svg("text", { x, y: y + 10, "text-anchor": "middle", class: "chip-text" }, label) : null, tip(hover));
}

/** A ship's cargo as small cubes in the goods' colours under it. */
function cargoCubes(x, y, cargo) {
  const cubes = cargo.flatMap((n, g) => Array(n).fill(g));
  const left = x - (cubes.length * 9) / 2;
  return cubes.map((g, k) => svg("rect", { x: left + k * 9, y, width: 8, height: 8, fill: GOOD_COLOUR[g], stroke: "#fff", "stroke-width": 0.8 }));
}

const ownerColour = (owner, ctx) => (owner >= 0 && owner < ctx.people.names.length ? ctx.people.colour(owner) : "#777");
const companyName = (c, ctx) => (c < ctx.people.names.length ? t("eic.company_of", { name: ctx.people.name(c) }) : t("eic.neutral_company"));
const ownerName = (owner, ctx) => (owner >= 0 && owner < ctx.people.names.length ? ctx.people.name(owner) : t("eic.neutral_company"));

function zoneShips(view, ctx, z, name) {
  // The loading track first (when this zone loads), then ships left here last epoch, then the stack.
  const all = view.players.flatMap((p, s) => p.ships.map((ship) => ({ ship, s })));
  const find = (id) => all.find((o) => o.ship.id === id);
  const { zone } = loadingHead(view);
  const ships = [];
  if (zone === z + 1) (view.queue || []).forEach((id, k) => ships.push({ id, owner: find(id) ? find(id).s : -1, note: t("eic.tip.to_load", { n: k + 1 }), order: k + 1 }));
  (view.left[z] || []).forEach((id) => ships.push({ id, owner: find(id) ? find(id).s : -1, note: t("eic.tip.left_here") }));
  (view.zone_owners[z] || []).forEach((owner, k) => ships.push({ id: (view.zones[z] || [])[k], owner, note: t("eic.tip.face_down") }));
  return ships.map(({ id, owner, note, order }, k) => {
    const x = 22 + (k % 4) * 36;
    const y = 150 + Math.floor(k / 4) * 40;
    const hover = id ? t("eic.tip.ship_in", { ship: shipName(id, ctx), zone: name, note }) : t("eic.tip.face_down_of", { name: ownerName(owner, ctx) });
    return svg("g", {}, shipIcon(x, y, id ? ownerColour(owner, ctx) : "#555", id ? (order ? String(order) : "") : "?", hover, id ? `ship:${id}` : null));
  });
}

function zones(view, ctx) {
  const posts = {};
  view.players.forEach((p, s) => p.posts.forEach((site) => (posts[site] = s)));
  return svg("g", {}, ZONES.map((name, z) => {
    const x = z * 166;
    const zone = svg("g", { class: "target zone", "data-target": `zone:${z + 1}` },
      svg("rect", { x, y: 0, width: 160, height: 250, rx: 14, class: "sea-zone" }),
      svg("text", { x: x + 10, y: 22, class: "card-title dark" }, name),
      tip(t("eic.tip.zone", { zone: name, good: GOOD_WORDS[[3, 2, 1][z]] })));
    SITES[z].forEach((site, i) => {
      const owner = posts[site];
      const closed = view.seats < 4 && CLOSED_SITES.includes(site) && owner === undefined;
      zone.append(svg("g", { class: "target", "data-target": `site:${site}` },
        svg("rect", { x: x + 6, y: 32 + i * 30, width: 148, height: 26, rx: 6, class: "hit" }),
        svg("circle", { cx: x + 20, cy: 45 + i * 30, r: 10, fill: owner !== undefined ? ownerColour(owner, ctx) : closed ? "#b9ad95" : "#fffdf5", stroke: "#6b5d45", "stroke-dasharray": closed ? "3 2" : null }),
        svg("text", { x: x + 36, y: 50 + i * 30, class: closed ? "small closed-site" : "small" }, site),
        tip(closed ? t("eic.tip.closed_site", { site }) : t("eic.tip.site", { site }) + (owner === undefined ? "" : `, ${t("eic.tip.post_of", { name: ownerName(owner, ctx) })}`))));
    });
    zone.append(at(x, 0, zoneShips(view, ctx, z, name)));
    return zone;
  }));
}

/** What an envoy sent to a space pays, said before it is sent. */
function spaceCost(view, id) {
  const { fees, ability } = envoyCost(view, id, null);
  const price = id === "SHP_SHIP" || id === "INV_SHIP" ? t("eic.ship_price") : ability ? `${ability} GS` : t("eic.nothing");
  return `. ${t("eic.tip.envoy_pays", { fees, price })}`;
}

function spaces(view, ctx) {
  const g = svg("g", {}, svg("text", { x: 0, y: 16, class: "card-title dark" }, t("eic.influence")));
  const h = 42; // two lines: the personality, then what the space gives
  const cell = (x, y, id, who, what, hover) => {
    const occupants = id === "central" ? [] : view.occupants[SPACES.findIndex((s) => s[0] === id)] || [];
    return svg("g", { class: "target space", "data-target": `space:${id}` },
      svg("rect", { x, y, width: 242, height: h - 4, rx: 6, class: "spot-bg" }),
      svg("text", { x: x + 8, y: y + 16, class: "space-text" }, svg("tspan", { "font-weight": 700 }, who), svg("tspan", { x: x + 8, dy: 17 }, what)),
      occupants.map((s, k) => svg("circle", { cx: x + 228 - k * 16, cy: y + 12, r: 7, fill: ownerColour(s, ctx), stroke: "#fff" })),
      tip(hover + (occupants.length ? `; ${t("eic.tip.envoys", { list: occupants.map((s) => ownerName(s, ctx)).join(", ") })}` : "") + (id === "central" ? "" : spaceCost(view, id))));
  };
  SPACES.forEach(([id, who, what], i) => g.append(cell((i % 2) * 250, 24 + Math.floor(i / 2) * h, id, who, what, `${who} — ${what}`)));
 g.append(cell(250, 24 + 5 * h, "central", t("eic.central"), t("eic.central_what"), t("eic.central_tip")));
  return g;
}

/** A market card's effect in short: "+2 tea +1 spices". */
function effect(card) {
  const short = (amounts) => amounts.map((n, i) => (n ? `${n > 0 ? "+" : "−"}${Math.abs(n)} ${GOOD_WORDS[i]}` : "")).filter(Boolean).join(" ");
  return { base: short(card.base) || "no change", extra: short(card.extra) };
}

/** A known card's effect as chips in the goods' colours ("+2" on tea green), the 4-player symbol's
 * extra counted in when four play. */
function cardEffect(x, y, card, four) {
  const amounts = card.base.map((n, i) => n + (four ? card.extra[i] : 0));
  return amounts.flatMap((n, i) => (n ? [[n, i]] : [])).map(([n, i], k) => svg("g", {},
    svg("rect", { x: x + k * 40, y, width: 36, height: 16, rx: 3, fill: GOOD_COLOUR[i] }),
    svg("text", { x: x + k * 40 + 18, y: y + 12, "text-anchor": "middle", class: "chip-text" }, `${n > 0 ? "+" : "−"}${Math.abs(n)}`)));
}

/** One good's column of price spaces, cubes on the filled ones; the space the next trade uses is ringed
 * (in the Far East the cheapest filled space, bought first; in Europe the dearest free one, filled next). */
function priceRow(x, y, prices, count, good, europe) {
  const next = europe ? count : count - 1;
  return prices.map((price, k) => {
    const filled = k < count;
    return svg("g", {},
      svg("rect", { x: x + k * 17, y, width: 16, height: 20, rx: 3, fill: filled ? GOOD_COLOUR[good] : "#fffdf5", stroke: k === next ? "#1f2a36" : "#b9a57f", "stroke-width": k === next ? 2 : 1 }),
      svg("text", { x: x + k * 17 + 8, y: y + 14.5, "text-anchor": "middle", class: filled ? "price-space light" : "price-space" }, price));
  });
}

/** The dice of the epoch, one per good in its colour: how many cubes arrive (Far East) or are bought. */
function dice(x, y, values, name) {
  return values.map((n, i) => svg("g", {},
    svg("rect", { x: x + i * 20, y, width: 17, height: 17, rx: 3, fill: GOOD_COLOUR[i], stroke: "#fff" }),
    svg("text", { x: x + i * 20 + 8.5, y: y + 13, "text-anchor": "middle", class: "chip-text" }, n),
    tip(t("eic.tip.die", { market: name, good: GOOD_WORDS[i], n }))));
}

/** Both markets: side by side, or on a phone one above the other and larger (each about as wide as
 * the narrow board then, and its price spaces as readable as the rest). */
function markets(view, narrow) {
  const known = [view.fe_card, view.eu_card];
  const side = view.seats === 4 ? "4" : "3";
  const sides = [[t("eic.far_east"), view.far_east, view.fe_dice, MARKETS.far_east[side]], [t("eic.europe"), view.europe, view.eu_dice, MARKETS.europe[side]]];
  return svg("g", {}, sides.map(([name, cubes, values, columns], m) => {
    const x = 0;
    const card = known[m] && MARKET_CARDS[known[m]];
    const place = narrow ? `translate(${(492 - 242 * MARKET_ZOOM) / 2},${m * MARKET_STEP}) scale(${MARKET_ZOOM})` : `translate(${m * 250},0)`;
    return svg("g", { transform: place }, svg("rect", { x, y: 0, width: 242, height: 166, rx: 10, class: "spot-bg" }), svg("text", { x: x + 10, y: 20, class: "card-title dark" }, name),
      dice(x + 232 - 4 * 20 + 3, 6, values, name),
      GOODS.map((good, i) => {
        const y = 30 + i * 28;
        const prices = columns[i];
        const count = cubes[i];
        const trade = m === 0
          ? (count ? t("eic.tip.next_bought", { n: prices[count - 1] }) : t("eic.tip.none_to_buy"))
          : t(count < prices.length ? "eic.tip.next_sold" : "eic.tip.next_sold_full", { n: count < prices.length ? prices[count] : 1 });
        return svg("g", {}, svg("rect", { x: x + 6, y, width: 54, height: 20, rx: 4, fill: GOOD_COLOUR[i] }),
          // a longer name (German "Gewürze") is squeezed into the chip rather than spilling over the prices
          svg("text", { x: x + 33, y: y + 14.5, "text-anchor": "middle", class: "chip-text", textLength: GOOD_WORDS[i].length > 6 ? 48 : null, lengthAdjust: "spacingAndGlyphs" }, GOOD_WORDS[i]),
          priceRow(x + 64, y, prices, count, i, m === 1),
          tip(t("eic.tip.market_row", { market: name, n: count, good: GOOD_WORDS[i], spaces: prices.length, trade, die: values[i] })));
      }),
      svg("text", { x: x + 10, y: 156, class: "small" }, card ? t("eic.card_label") : t("eic.card_face_down")),
      card ? cardEffect(x + 60, 144, card, view.seats === 4) : null,
      tip(card ? marketCard(known[m]) : t("eic.tip.card_down", { market: name })));
  }));
}

/** The stock exchange: a row per company (share value, dividend per share, shares left to buy), and
 * under them the track of share values with each company's marker. */
function exchange(view, ctx) {
  const g = svg("g", {}, svg("rect", { x: 0, y: 0, width: 492, height: 166, rx: 10, class: "spot-bg" }),
    svg("text", { x: 10, y: 20, class: "card-title dark" }, t("eic.exchange")),
    svg("text", { x: 482, y: 20, "text-anchor": "end", class: "small" }, t("eic.exchange_columns")));
  view.share_values.forEach((value, c) => {
    const y = 26 + c * 20;
    const dividend = STOCK.dividends[view.stock[c]];
    g.append(svg("g", { class: "target", "data-target": `company:${c}` },
      svg("rect", { x: 6, y, width: 480, height: 18, rx: 5, fill: "#fffdf5", stroke: "#0002" }),
      svg("circle", { cx: 18, cy: y + 9, r: 6, fill: ownerColour(c, ctx) }),
      svg("text", { x: 30, y: y + 14, class: "row-text" }, c < ctx.people.names.length ? companyName(c, ctx) : t("eic.neutral_company_cap")),
      svg("text", { x: 478, y: y + 14, "text-anchor": "end", class: "row-text" }, t("eic.exchange_row", { value, dividend, left: view.exchange[c] })),
      tip(t("eic.tip.company", { company: companyName(c, ctx), value, dividend, left: view.exchange[c] }))));
  });
  // The track in two rows of fifteen; a company's marker colours its space (shared spaces in stripes).
  const perRow = 15;
  const cell = 480 / perRow;
  STOCK.values.forEach((value, k) => {
    const x = 6 + (k % perRow) * cell;
    const y = 110 + Math.floor(k / perRow) * 26;
    const here = view.stock.map((space, c) => (space === k ? c : -1)).filter((c) => c >= 0);
    const stripe = (cell - 2) / Math.max(here.length, 1);
    g.append(svg("g", {},
      svg("rect", { x, y, width: cell - 2, height: 22, rx: 3, fill: "#f2ead8", stroke: "#b9a57f" }),
      here.map((c, j) => svg("rect", { x: x + j * stripe, y, width: stripe, height: 22, fill: ownerColour(c, ctx) })),
      svg("text", { x: x + (cell - 2) / 2, y: y + 15.5, "text-anchor": "middle", class: here.length ? "price-space light" : "price-space" }, value),
      tip(t("eic.tip.track", { value, dividend: STOCK.dividends[k] }) + (here.length ? `: ${here.map((c) => companyName(c, ctx)).join(", ")}` : ""))));
  });
  return g;
}

function port(view, ctx, s, w) {
  const p = view.players[s];
  const home = p.ships.filter((ship) => ship.zone === 0);
  const docks = 2 + p.extensions;
  const room = Math.max(docks, home.length);
  const step = Math.min(44, (w - 20) / Math.max(room, 1));
  const g = svg("g", {}, svg("rect", { x: 0, y: 0, width: w, height: 150, rx: 10, class: "port" }),
    svg("circle", { cx: 14, cy: 16, r: 7, fill: ownerColour(s, ctx) }),
    svg("text", { x: 26, y: 21, class: "card-title dark" }, s < ctx.people.names.length ? t("eic.port_of", { name: ctx.people.name(s) }) : t("eic.neutral_port")),
    svg("text", { x: w - 8, y: 21, "text-anchor": "end", class: "small" }, `${p.treasury} GS`),
    Array.from({ length: docks }, (_, k) => svg("rect", { x: 10 + k * step, y: 34, width: step - 6, height: 52, rx: 5, class: "dock-slot" })),
    tip(t("eic.tip.port", { name: ownerName(s, ctx), docks, treasury: p.treasury, income: p.income })));
  home.forEach((ship, k) => {
    const x = 10 + k * step + (step - 6) / 2;
    g.append(shipIcon(x, 62, ship.face_down ? "#555" : ownerColour(s, ctx), ship.id ? "" : "?",
      t("eic.tip.in_port", { ship: ship.id ? shipName(ship.id, ctx) : t("eic.a_ship") }) + (sum(ship.cargo) ? `, ${t("eic.tip.carrying", { goods: goods(ship.cargo) })}` : ""), ship.id ? `ship:${ship.id}` : null));
    g.append(svg("g", {}, cargoCubes(x, 78, ship.cargo)));
  });
  const stored = sum(p.warehouse);
  g.append(svg("g", { class: "target", "data-target": `warehouse:${s}` },
    svg("rect", { x: 6, y: 94, width: w - 12, height: 24, rx: 5, fill: "#fffdf5", stroke: "#0002" }),
    svg("text", { x: 12, y: 111, class: "small" }, stored ? t("eic.warehouse", { goods: goods(p.warehouse) }) : t("eic.warehouse_empty")),
    tip(t("eic.tip.warehouse", { name: ownerName(s, ctx), goods: goods(p.warehouse) }))));
  const posts = p.posts.length ? t("eic.posts", { list: p.posts.join(", ") }) : t("eic.no_post");
  g.append(svg("text", { x: 10, y: 138, class: "small" }, posts, tip(posts)));
  return g;
}

function ports(view, ctx, width, perRow) {
  const w = (width - (perRow - 1) * 8) / perRow;
  return svg("g", {}, view.players.map((_, s) => at((s % perRow) * (w + 8), Math.floor(s / perRow) * 158, port(view, ctx, s, w))));
}

/** The market cards the viewer may choose from (only while choosing), each a card to click. */
const offeredCards = (ctx) => [...(ctx.offered || [])].filter((k) => k.startsWith("card:")).map((k) => k.slice(5));

/** A market card's line for four players ("4 players: +1 silk"), squeezed into the card when it is longer
 * than the card is wide (German words are longer; a phone's type is larger). */
function fourPlayers(card, x, y, width) {
  const words = t("eic.four_players", { extra: effect(card).extra });
  const fits = words.length <= (width < 600 ? 15 : 17);
  return svg("text", { x: x + 8, y: y + 106, class: "small", textLength: fits ? null : 116, lengthAdjust: "spacingAndGlyphs" }, words);
}

function cardChoice(view, ctx, width) {
  const offered = offeredCards(ctx);
  if (!offered.length) return null;
  const perRow = Math.floor((width + 8) / 140);
  const europe = MARKET_CARDS[offered[0]] && MARKET_CARDS[offered[0]].market === "europe";
  const g = svg("g", {}, svg("text", { x: 0, y: 16, class: "card-title dark" }, t(europe ? "eic.choose_europe" : "eic.choose_far_east")));
  offered.forEach((id, k) => {
    const card = MARKET_CARDS[id] || { deck: 0, base: [0, 0, 0, 0], extra: [0, 0, 0, 0] };
    const x = (k % perRow) * 140;
    const y = 26 + Math.floor(k / perRow) * 122;
    const extra = card.extra.some(Boolean);
    g.append(svg("g", { class: "target market-card", "data-target": `card:${id}` },
      svg("rect", { x, y, width: 132, height: 114, rx: 8, class: "market-card-bg" }),
      svg("text", { x: x + 8, y: y + 18, class: "small" }, t("eic.deck_card", { deck: ROMAN[card.deck] || card.deck, card: id.split("-").pop() })),
      card.base.flatMap((n, i) => (n ? [i] : [])).map((i, row) => svg("g", {},
        svg("rect", { x: x + 8, y: y + 26 + row * 20, width: 14, height: 14, rx: 2, fill: GOOD_COLOUR[i] }),
        svg("text", { x: x + 28, y: y + 38 + row * 20, class: "slot-text" }, `${card.base[i] > 0 ? "+" : "−"}${Math.abs(card.base[i])} ${GOOD_WORDS[i]}`))),
      extra ? fourPlayers(card, x, y, width) : null,
      tip(marketCard(id))));
  });
  return g;
}

function layout(view, ctx) {
  const narrow = typeof window !== "undefined" && window.matchMedia && window.matchMedia(NARROW).matches;
  const width = narrow ? 500 : 1000;
  const over = view.phase === "over";
  const phase = over ? t("conn.game_over") : t("eic.phase_letter", { letter: LETTER[view.phase] || view.phase });
  const doing = [over ? "" : PHASES[view.phase] || "", view.actor >= 0 && !over ? (view.actor === ctx.viewer && !ctx.replaying && !ctx.standIn ? t("tables.your_turn") : t("eic.to_act", { name: ownerName(view.actor, ctx) })) : ""].filter(Boolean).join(" · ");
  const head = svg("text", { x: 4, y: 22, class: "headline" }, `${t("eic.epoch", { n: view.epoch })} (${EPOCHS[view.epoch - 1] || ""}) · ${phase}`,
    doing ? svg("tspan", narrow ? { x: 4, dy: 22 } : {}, narrow ? doing : `, ${doing}`) : "");
  const parts = [head];
  let y = narrow ? 56 : 36;
  const cards = cardChoice(view, ctx, width - 8);
  if (cards) {
    parts.push(at(4, y, cards));
    const rows = Math.ceil(offeredCards(ctx).length / Math.floor(width / 140));
    y += 30 + rows * 122;
  }
  if (narrow) {
    parts.push(at(4, y, zones(view, ctx)), at(4, y + 262, spaces(view, ctx)), at(4, y + 550, markets(view, true)));
    y += 550 + 2 * MARKET_STEP;
    parts.push(at(4, y, exchange(view, ctx)));
    y += 176;
    parts.push(at(4, y, ports(view, ctx, 492, 2)));
    y += Math.ceil(view.players.length / 2) * 158;
  } else {
    parts.push(at(4, y, zones(view, ctx)), at(504, y, spaces(view, ctx)), at(4, y + 284, markets(view, false)), at(504, y + 284, exchange(view, ctx)));
    y += 460;
    parts.push(at(4, y, ports(view, ctx, 992, view.players.length)));
    y += 158;
  }
  return { width, height: y, narrow, parts };
}

function draw(view, ctx) {
  const { width, height, narrow, parts } = layout(view, ctx);
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: `board board-eic${narrow ? " narrow" : ""}`, role: "img", "aria-label": t("eic.board") }, parts);
}

export default {
  draw,
  scoreName: t("eic.wealth"),
  money(view, seat) {
    const p = view.players[seat];
    // GS: the rulebook's Goldstücke; the first money a player sees says what it is.
    return [`${p.treasury} `, el("abbr", { title: t("eic.gs_title") }, "GS"), ` · ${t("eic.income", { n: p.income })} · ${t(p.ships.length === 1 ? "eic.ships_one" : "eic.ships", { n: p.ships.length })}`];
  },
  /** The key numbers beside the choice on a phone: each company's share value, dividend and shares left,
   * and the viewer's treasury. */
  facts(view, ctx) {
    const rows = view.share_values.map((value, c) => t("eic.facts.row", { company: c < ctx.people.names.length ? ctx.people.name(c) : t("eic.neutral_company"), value, dividend: STOCK.dividends[view.stock[c]], left: view.exchange[c] }));
    const lines = [[t("eic.facts.shares"), rows.join(" · ")]];
    if (ctx.viewer !== null && ctx.viewer !== undefined) lines.push([t("eic.facts.treasury"), `${view.players[ctx.viewer].treasury} GS`]);
    return lines;
  },
  /** Shares lie open in front of their buyer: who holds which, for everyone (start shares too, and
   * how many of them are pledged). */
  holdings(view, seat, ctx) {
    const p = view.players[seat];
    const own = START_SHARES - p.pledged;
    const start = seat < view.seats ? [t(own === 1 ? "eic.start_share" : "eic.start_shares", { n: own }) + (p.pledged ? ` (${t("eic.pledged", { n: p.pledged })})` : "")] : [];
    const bought = [];
    p.shares.forEach((n, c) => {
      if (n) bought.push(t("eic.held_of", { n, company: companyName(c, ctx) }));
    });
    return [[t("eic.shares"), [...start, ...bought]]];
  },
  /** The rulebook's final wealth: start shares not pledged, every share held (each at its company's
   * value) and the treasury; the neutral company's shares count too. */
  breakdown(view, outcome, seat, ctx) {
    const p = view.players[seat];
    const value = view.share_values;
    const own = START_SHARES - p.pledged;
    const parts = [[t("eic.start_shares_at", { shares: t(own === 1 ? "eic.start_share" : "eic.start_shares", { n: own }), value: value[seat] }), own * value[seat]]];
    p.shares.forEach((n, c) => {
      if (n) parts.push([t(n === 1 ? "eic.share_of_at" : "eic.shares_of_at", { n, company: companyName(c, ctx), value: value[c] }), n * value[c]]);
    });
    parts.push([t("eic.treasury"), p.treasury]);
    return parts;
  },
  /** What the one to act does: in the second person for them, the phase's name for everyone else. */
  prompt(view, ctx) {
    if (ctx && ctx.viewer !== view.actor) return PHASES[view.phase] || "";
    const steps = { envoy: t("eic.prompt.envoy"), stock: t("eic.prompt.stock"), navigate: t("eic.prompt.navigate"), load: t("eic.prompt.load"),
      warehouse: t("eic.prompt.warehouse"), unload: t("eic.prompt.unload"), influence_fe: t("eic.prompt.influence_fe"), influence_eu: t("eic.prompt.influence_eu") };
    return steps[view.step] || PHASES[view.phase] || "";
  },
  path,
  describe,
};
