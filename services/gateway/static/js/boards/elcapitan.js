// El Capitán: the Mediterranean as its grid of cities (and Porto, Lisboa, Islas Canarias when in play),
// each city's 12 sites with their values, dark and triangle sites, warehouses and fortresses in player
// colours, harbour spaces with the ships and the pirate, the bank, the open sailing cards and your hand.
import { svg, tip } from "../dom.js";
import { CARDS, CITIES, cardText, title } from "./elcapitan-data.js";
import { describe, path } from "./elcapitan-words.js";

const EMPTY = -1;
const PIRATE = -2;
const MAP_TOP = 36;
const TILE_H = 170;

function owner(colour, seats) {
  return seats === 2 ? colour % 2 : colour;
}

function fillOf(colour, ctx, seats) {
  return colour === EMPTY ? "#fffdf5" : colour === PIRATE ? "#222" : ctx.people.colour(owner(colour, seats));
}

function site(c, i, x, y, size, view, ctx) {
  const colour = c.sites[i];
  const number = i + 1;
  const value = CITIES[c.name].track[i];
  const dark = CITIES[c.name].dark.includes(number);
  const triangle = CITIES[c.name].triangle === number && view.seats <= 3;
  const who = colour === EMPTY ? "free" : `${ctx.people.name(owner(colour, view.seats))}'s warehouse${view.seats === 2 && colour >= 2 ? " (neutral)" : ""}`;
  return svg("g", { class: "target site", "data-target": `site:${c.name}:${number}` },
    svg("rect", { x, y, width: size, height: size, rx: 4, fill: fillOf(colour, ctx, view.seats), stroke: dark || triangle ? "#111" : "#8a7d66", "stroke-width": dark || triangle ? 2.5 : 1 }),
    svg("text", { x: x + size / 2, y: y + size / 2 + 5, "text-anchor": "middle", class: colour === EMPTY ? "site-value" : "site-value light" }, value),
    dark ? svg("path", { d: `M${x + size - 10},${y} L${x + size},${y} L${x + size},${y + 10} Z`, fill: "#111" }) : null,
    triangle ? svg("path", { d: `M${x},${y + size} L${x + 10},${y + size} L${x},${y + size - 10} Z`, fill: "#111" }) : null,
    tip(`${title(c.name)}, site ${number}: worth ${value} at a payday majority; ${who}${dark ? "; a dark site: building here shuts a warehouse down" : ""}${triangle ? "; the triangle site shuts one down with 2–3 players" : ""}`));
}

function harbourSpace(c, i, x, y, view, ctx) {
  const seat = c.harbours[i];
  const cost = CITIES[c.name].harbours[i];
  const ship = seat === EMPTY ? null : seat === PIRATE ? "#222" : ctx.people.colour(seat);
  return svg("g", { class: "target harbour-space", "data-target": `harbour:${c.name}:${i}` },
    svg("circle", { cx: x, cy: y, r: 14, fill: "#cfe3ec", stroke: "#5f8ea3" }),
    ship ? svg("path", { d: `M${x - 11},${y - 2} L${x + 11},${y - 2} L${x + 7},${y + 8} L${x - 7},${y + 8} Z M${x - 1},${y - 2} L${x - 1},${y - 13} L${x + 8},${y - 4} Z`, fill: ship, stroke: "#fff" }) : svg("text", { x, y: y + 5, "text-anchor": "middle", class: "site-value" }, cost),
    tip(`${title(c.name)}, harbour space ${i + 1}: a warehouse built from here costs ${cost}${seat === PIRATE ? "; the pirate ship lies here" : seat !== EMPTY ? `; ${ctx.people.name(seat)}'s ship` : ""}`));
}

function fortressSlot(c, i, x, y, view, ctx) {
  const seat = c.fortresses[i];
  const cost = CITIES[c.name].fortresses[i];
  return svg("g", {},
    svg("path", { d: `M${x},${y + 24} L${x},${y + 6} L${x + 6},${y + 6} L${x + 6},${y} L${x + 12},${y} L${x + 12},${y + 6} L${x + 18},${y + 6} L${x + 18},${y} L${x + 24},${y} L${x + 24},${y + 24} Z`, fill: seat === EMPTY ? "#fffdf5" : ctx.people.colour(seat), stroke: "#6b5d45" }),
    seat === EMPTY ? svg("text", { x: x + 12, y: y + 20, "text-anchor": "middle", class: "small" }, cost) : null,
    tip(`${title(c.name)}, fortress site ${i + 1}: costs ${cost}, counts double in the majority${seat === EMPTY ? "" : `; ${ctx.people.name(seat)}'s fortress`}`));
}

function tile(c, box, view, ctx) {
  const { x, y, w } = box;
  const size = Math.min(34, (w - 20) / 6 - 4);
  const g = svg("g", { class: "target city", "data-target": `city:${c.name}`, "data-city": c.name },
    svg("rect", { x, y, width: w, height: TILE_H - 8, rx: 10, class: "city-tile" }),
    svg("text", { x: x + 10, y: y + 20, class: "card-title dark" }, title(c.name)),
    tip(`${title(c.name)}: harbour spaces cost ${CITIES[c.name].harbours.join(" / ")} per warehouse; fortresses ${CITIES[c.name].fortresses.join(" / ")}`));
  (c.closed || []).forEach((colour, k) => g.append(svg("circle", { cx: x + w - 12 - k * 14, cy: y + 14, r: 6, fill: fillOf(colour, ctx, view.seats), stroke: "#111" }, tip(`a shut-down warehouse of ${ctx.people.name(owner(colour, view.seats))} on the city picture`))));
  c.sites.forEach((_, i) => {
    const row = i < 6 ? 0 : 1;
    const col = i < 6 ? i : i - 6;
    g.append(site(c, i, x + 10 + col * (size + 4), y + 30 + row * (size + 4), size, view, ctx));
  });
  const low = y + 30 + 2 * (size + 4) + 20;
  c.harbours.forEach((_, i) => g.append(harbourSpace(c, i, x + 24 + i * 34, low, view, ctx)));
  const forts = svg("g", { class: "target", "data-target": `fortress:${c.name}` }, svg("rect", { x: x + w - 12 - c.fortresses.length * 30, y: low - 16, width: c.fortresses.length * 30 + 4, height: 32, rx: 6, fill: "rgba(255,255,255,0.01)", stroke: "none" }));
  c.fortresses.forEach((_, i) => forts.append(fortressSlot(c, i, x + w - 8 - (c.fortresses.length - i) * 30, low - 12, view, ctx)));
  g.append(forts);
  return g;
}

function card(id, x, y, key, ctx, note) {
  const c = CARDS[id] || {};
  return svg("g", { class: "target card", "data-target": key },
    svg("rect", { x, y, width: 118, height: 54, rx: 7, class: c.kind === "link" ? "card-link" : "card-dest" }),
    svg("text", { x: x + 8, y: y + 20, class: "card-line" }, c.kind === "link" ? `${title(c.cities[0]).slice(0, 9)} ↔` : title(c.city)),
    svg("text", { x: x + 8, y: y + 38, class: "card-line" }, c.kind === "link" ? title(c.cities[1]).slice(0, 12) : `${c.seals} seal${c.seals === 1 ? "" : "s"}`),
    svg("text", { x: x + 110, y: y + 48, "text-anchor": "end", class: "card-cost" }, `${c.cost} fl`),
    tip(`${cardText(id)}: ${c.kind === "link" ? "sail once between these two cities" : `sail to ${title(c.city)}, or up to ${c.seals} steps by sea`}; costs ${c.cost} florins${note || ""}`));
}

function lower(view, ctx, top) {
  const g = svg("g", {});
  const atBank = view.players.map((p, s) => (p.ship === "bank" ? s : null)).filter((s) => s !== null);
  g.append(svg("g", { class: "target", "data-target": "bank" },
    svg("rect", { x: 6, y: top, width: 118, height: 120, rx: 10, class: "bank" }),
    svg("text", { x: 65, y: top + 22, "text-anchor": "middle", class: "card-title dark" }, "Bank"),
    svg("text", { x: 65, y: top + 40, "text-anchor": "middle", class: "small" }, "loans 10 / 16"),
    atBank.map((s, k) => svg("circle", { cx: 24 + k * 22, cy: top + 80, r: 9, fill: ctx.people.colour(s), stroke: "#fff" }, tip(`${ctx.people.name(s)}'s ship is at the bank`))),
    tip("The bank: sail here free to take a loan of 10 or 16 florins; the turn ends at once")));
  g.append(svg("text", { x: 134, y: top + 12, class: "small" }, `Destination cards (${view.destinations.draw_count} in the pile)`));
  view.destinations.display.forEach((id, i) => g.append(card(id, 134 + i * 124, top + 18, `buy:${id}`, ctx)));
  g.append(svg("text", { x: 134, y: top + 88, class: "small" }, `Interconnection cards (${view.interconnections.draw_count} in the pile)`));
  view.interconnections.display.forEach((id, i) => g.append(card(id, 134 + i * 124, top + 94, `buy:${id}`, ctx)));
  const me = ctx.viewer === null || ctx.viewer === undefined ? null : view.players[ctx.viewer];
  if (me) {
    g.append(svg("text", { x: 6, y: top + 168, class: "small" }, me.hand.length ? "Your hand" : "Your hand is empty"));
    me.hand.forEach((id, i) => g.append(card(id, 6 + (i % 8) * 124, top + 174 + Math.floor(i / 8) * 60, `hand:${id}`, ctx, " (in your hand)")));
  }
  return g;
}

function draw(view, ctx) {
  const cities = view.cities;
  const cols = cities.some((c) => CITIES[c.name] && CITIES[c.name].col === 0) ? 4 : 3;
  const w = (1000 - 12 - (cols - 1) * 8) / cols;
  const first = cols === 4 ? 0 : 1; // the expansion cities take column 0
  const me = ctx.viewer === null || ctx.viewer === undefined ? null : view.players[ctx.viewer];
  const handRows = me ? Math.max(1, Math.ceil(me.hand.length / 8)) : 0;
  const height = MAP_TOP + 3 * TILE_H + 136 + (me ? 40 + handRows * 60 : 0);
  const current = view.to_act.length ? view.to_act[0] : view.current;
  const head = svg("text", { x: 6, y: 24, class: "headline" }, `Phase ${view.phase} of 3 · round ${view.round}`,
    view.stage === "turn" ? ` · ${ctx.people.name(current)} is sailing` : view.stage === "loans" ? " · loans after the payday" : view.stage === "choose_start" ? " · the poorest names the start player" : "",
    view.pirate ? ` · pirate at ${title(view.pirate)}` : "", view.phase_ending ? " · the phase ends this round" : "");
  const map = svg("g", {}, svg("rect", { x: 0, y: MAP_TOP - 4, width: 1000, height: 3 * TILE_H + 4, rx: 12, class: "sea" }),
    cities.map((c) => {
      const info = CITIES[c.name] || { row: 1, col: 1 };
      return tile(c, { x: 6 + (info.col - first) * (w + 8), y: MAP_TOP + (info.row - 1) * TILE_H, w }, view, ctx);
    }));
  return svg("svg", { viewBox: `0 0 1000 ${height}`, class: "board board-elcapitan", role: "img", "aria-label": "El Capitán board" },
    head, map, lower(view, ctx, MAP_TOP + 3 * TILE_H + 8));
}

export default {
  draw,
  scoreName: "Money (florins)",
  money(view, seat) {
    const p = view.players[seat];
    const loans = (p.loans || []).filter((l) => !l.settled).length;
    return `${p.money} fl · ${p.warehouses} wh${loans ? ` · ${loans} loan${loans === 1 ? "" : "s"}` : ""}${p.ship ? ` · ${title(p.ship)}` : ""}`;
  },
  breakdown(view, outcome, seat, ctx) {
    const sums = { majorities: 0, proliferation: 0, fortresses: 0, bonuses: 0 };
    for (const { event } of ctx.events || []) {
      if (event && event.type === "PaydayHeld") for (const k of Object.keys(sums)) sums[k] += event[k][seat] || 0;
    }
    return [["majorities", sums.majorities], ["proliferation", sums.proliferation], ["fortresses", sums.fortresses], ["bonus cards", sums.bonuses]];
  },
  prompt(view) {
    return { turn: "buy a card, sail, build", loans: "repay or extend loans", choose_start: "name the next start player" }[view.stage] || "";
  },
  path,
  describe,
};
