// East India Companies: the Far East with its three sea zones, trading-post sites and the ships there
// (face down for those who may not see them), the influence spaces with their envoys, both markets with
// their goods and dice, the stock exchange, and each company's port with its ships and warehouse.
import { svg, tip } from "../dom.js";
import { GOODS, SPACES, ZONES, describe, goods, path, shipName } from "./eic-words.js";

const SITES = [["Canton", "Macao", "Formosa"], ["Batavia", "Malacca"], ["Bombay", "Madras", "Calcutta"]];
const GOOD_COLOUR = ["#3a7d44", "#b03a2e", "#6e4b2a", "#8e5ba8"];
const EPOCHS = ["1700–1750", "1750–1800", "1800–1850", "1850–1900", "1900–1950"];

function shipIcon(x, y, fill, label, hover, key) {
  return svg("g", { class: "target ship-icon", "data-target": key },
    svg("rect", { x: x - 18, y: y - 20, width: 36, height: 34, rx: 6, class: "hit" }),
    svg("path", { d: `M${x - 16},${y} L${x + 16},${y} L${x + 10},${y + 12} L${x - 10},${y + 12} Z M${x - 1},${y} L${x - 1},${y - 18} L${x + 12},${y - 4} Z`, fill, stroke: "#fff", "stroke-width": 1.5 }),
    label ? svg("text", { x, y: y + 10, "text-anchor": "middle", class: "chip-text" }, label) : null, tip(hover));
}

function zones(view, ctx) {
  const g = svg("g", {});
  const posts = {};
  view.players.forEach((p, s) => p.posts.forEach((site) => (posts[site] = s)));
  ZONES.forEach((name, z) => {
    const x = 6 + z * 164;
    const zone = svg("g", { class: "target zone", "data-target": `zone:${z + 1}` },
      svg("rect", { x, y: 40, width: 158, height: 250, rx: 14, class: "sea-zone" }),
      svg("text", { x: x + 10, y: 60, class: "card-title dark" }, name),
      tip(`${name}: ships sent here load its goods; trading posts here let you buy cheaper`));
    SITES[z].forEach((site, i) => {
      const owner = posts[site];
      zone.append(svg("g", { class: "target", "data-target": `site:${site}` },
        svg("rect", { x: x + 10, y: 72 + i * 30, width: 140, height: 24, rx: 6, class: "hit" }),
        svg("circle", { cx: x + 24, cy: 84 + i * 30, r: 10, fill: owner === undefined ? "#fffdf5" : ctx.people.colour(owner), stroke: "#6b5d45" }),
        svg("text", { x: x + 40, y: 89 + i * 30, class: "small" }, site),
        tip(`${site}: a trading-post site${owner === undefined ? "" : `, ${ctx.people.name(owner)}'s post`}`)));
    });
    const ids = view.zones[z] || [];
    (view.zone_owners[z] || []).forEach((owner, k) => {
      const id = ids[k];
      const col = k % 4;
      const row = Math.floor(k / 4);
      zone.append(shipIcon(x + 24 + col * 36, 200 + row * 34, id ? (owner >= 0 ? ctx.people.colour(owner) : "#777") : "#555", id ? "" : "?",
        id ? `${shipName(id, ctx)} in ${name}` : `a face-down ship of ${owner >= 0 ? ctx.people.name(owner) : "the neutral"}`, id ? `ship:${id}` : null));
    });
    g.append(zone);
  });
  return g;
}

function spaces(view, ctx) {
  const g = svg("g", {});
  g.append(svg("text", { x: 506, y: 58, class: "card-title dark" }, "Influence"));
  SPACES.forEach(([id, who, what], i) => {
    const x = 506 + (i % 2) * 246;
    const y = 66 + Math.floor(i / 2) * 38;
    const occupants = view.occupants[i] || [];
    g.append(svg("g", { class: "target space", "data-target": `space:${id}` },
      svg("rect", { x, y, width: 240, height: 32, rx: 6, class: "spot-bg" }),
      svg("text", { x: x + 8, y: y + 21, class: "space-text" }, `${who}: ${what}`),
      occupants.map((s, k) => svg("circle", { cx: x + 226 - k * 16, cy: y + 16, r: 7, fill: s >= 0 ? ctx.people.colour(s) : "#777", stroke: "#fff" })),
      tip(`${who} — ${what}${occupants.length ? `; envoys: ${occupants.map((s) => (s >= 0 ? ctx.people.name(s) : "neutral")).join(", ")}` : ""}`)));
  });
  g.append(svg("g", { class: "target space", "data-target": "space:central" },
    svg("rect", { x: 752, y: 66 + 5 * 38, width: 240, height: 32, rx: 6, class: "spot-bg" }),
    svg("text", { x: 760, y: 66 + 5 * 38 + 21, class: "space-text" }, "Central zone"),
    tip("The central zone: an envoy may stand here; it uses no ability and costs nothing")));
  return g;
}

function markets(view, top) {
  const g = svg("g", {});
  [["Far East market", view.far_east, view.fe_dice], ["European market", view.europe, view.eu_dice]].forEach(([name, cubes, dice], m) => {
    const x = 6 + m * 250;
    g.append(svg("rect", { x, y: top, width: 244, height: 150, rx: 10, class: "spot-bg" }), svg("text", { x: x + 10, y: top + 20, class: "card-title dark" }, name));
    GOODS.forEach((good, i) => {
      const y = top + 32 + i * 28;
      g.append(svg("g", {}, svg("rect", { x: x + 10, y, width: 66, height: 22, rx: 4, fill: GOOD_COLOUR[i] }),
        svg("text", { x: x + 16, y: y + 16, class: "slot-text light" }, good),
        Array.from({ length: Math.min(cubes[i], 10) }, (_, k) => svg("rect", { x: x + 84 + k * 12, y: y + 5, width: 10, height: 12, fill: GOOD_COLOUR[i], stroke: "#fff" })),
        svg("text", { x: x + 232, y: y + 16, "text-anchor": "end", class: "small" }, `${cubes[i]} · die ${dice[i]}`),
        tip(`${name}: ${cubes[i]} ${good}; the die of this epoch shows ${dice[i]}`)));
    });
  });
  return g;
}

function exchange(view, ctx, top) {
  const g = svg("g", {}, svg("rect", { x: 506, y: top, width: 488, height: 150, rx: 10, class: "spot-bg" }),
    svg("text", { x: 516, y: top + 20, class: "card-title dark" }, "Stock exchange"),
    svg("text", { x: 984, y: top + 20, "text-anchor": "end", class: "small" }, "value · on the exchange · in stock"));
  view.share_values.forEach((value, c) => {
    const y = top + 30 + c * 28;
    g.append(svg("g", { class: "target", "data-target": `company:${c}` },
      svg("rect", { x: 512, y, width: 476, height: 24, rx: 5, fill: "#fffdf5", stroke: "#0002" }),
      svg("circle", { cx: 526, cy: y + 12, r: 7, fill: ctx.people.colour(c) }),
      svg("text", { x: 540, y: y + 17, class: "slot-text" }, `${ctx.people.name(c)}'s company`),
      svg("text", { x: 980, y: y + 17, "text-anchor": "end", class: "slot-text" }, `${value} GS · ${view.exchange[c]} · ${view.stock[c]}`),
      tip(`${ctx.people.name(c)}'s company: a share is worth ${value} GS; ${view.exchange[c]} on the exchange, ${view.stock[c]} in stock`)));
  });
  return g;
}

function ports(view, ctx, top) {
  const g = svg("g", {});
  const w = (988 - (view.players.length - 1) * 8) / view.players.length;
  view.players.forEach((p, s) => {
    const x = 6 + s * (w + 8);
    const home = p.ships.filter((ship) => ship.zone === 0);
    g.append(svg("g", {}, svg("rect", { x, y: top, width: w, height: 120, rx: 10, class: "port" }),
      svg("circle", { cx: x + 14, cy: top + 16, r: 7, fill: ctx.people.colour(s) }),
      svg("text", { x: x + 26, y: top + 21, class: "card-title dark" }, `${ctx.people.name(s)}'s port`),
      svg("text", { x: x + 10, y: top + 110, class: "small" }, `warehouse: ${goods(p.warehouse)}${p.posts.length ? ` · posts: ${p.posts.join(", ")}` : ""}`),
      home.map((ship, k) => shipIcon(x + 28 + k * 44, top + 56, ship.face_down ? "#555" : ctx.people.colour(s), ship.id ? "" : "?",
        `${ship.id ? shipName(ship.id, ctx) : "a ship"} in port${ship.cargo.some(Boolean) ? `, carrying ${goods(ship.cargo)}` : ""}`, ship.id ? `ship:${ship.id}` : null)),
      home.map((ship, k) => (ship.cargo.some(Boolean) ? svg("text", { x: x + 28 + k * 44, y: top + 86, "text-anchor": "middle", class: "small" }, ship.cargo.reduce((a, b) => a + b, 0)) : null)),
      tip(`${ctx.people.name(s)}'s port: ${2 + p.extensions} docks; treasury ${p.treasury} GS, income ${p.income}`)));
  });
  return g;
}

function draw(view, ctx) {
  const head = svg("text", { x: 6, y: 24, class: "headline" }, `Epoch ${view.epoch} (${EPOCHS[view.epoch - 1] || ""}) · phase ${view.phase}`,
    view.actor >= 0 ? ` · ${ctx.people.name(view.actor)} to act` : "", view.fe_card ? ` · Far East card ${view.fe_card}` : "");
  return svg("svg", { viewBox: "0 0 1000 640", class: "board board-eic", role: "img", "aria-label": "East India Companies board" },
    head, zones(view, ctx), spaces(view, ctx), markets(view, 300), exchange(view, ctx, 300), ports(view, ctx, 460));
}

export default {
  draw,
  scoreName: "Score",
  money(view, seat) {
    const p = view.players[seat];
    return `${p.treasury} GS · income ${p.income} · ${p.ships.length} ships`;
  },
  breakdown(view, outcome, seat) {
    const p = view.players[seat];
    return [["treasury", p.treasury], ["shares", p.shares.reduce((a, b) => a + b, 0)]];
  },
  prompt(view) {
    return { envoy: "send an envoy", exchange: "buy or sell shares", send: "send ships", navigate: "send your ships out to sea", load: "load in the Far East", unload: "sell in Europe", influence_fe: "use the Far East influence", influence_eu: "use the European influence" }[view.step] || `phase ${view.phase}${view.step ? ", " + view.step.replace(/_/g, " ") : ""}`;
  },
  path,
  describe,
};
