// One El Capitán city as the printed board lays it out (rulebook, "The game board"): the top row holds
// the harbour spaces (the warehouse cost) and the fortress sites (the fortress cost); the warehouse sites
// run in a U around the city picture — down the left side, along the bottom, up the right side — and the
// last space, top right, takes no building. Dark sites shut a warehouse down; so does the triangle site
// with 2–3 players. Shut-down warehouses stand on the picture.
import { svg, tip } from "../dom.js";
import { t } from "../i18n.js";
import { CITIES, title } from "./elcapitan-data.js";
import { TILE_COLS } from "./elcapitan-map.js";

export const EMPTY = -1;
export const PIRATE = -2;
export const HEADER = 18;

export function owner(colour, seats) {
  return seats === 2 ? colour % 2 : colour;
}

/** Grid square (column, row) of space 1..13 on the U-track. */
function trackCell(number) {
  if (number <= 4) return [0, number];
  if (number <= 9) return [number - 5, 5];
  return [4, 14 - number];
}

const house = (x, y, s) => `M${x + 3},${y + s * 0.45} L${x + s / 2},${y + 3} L${x + s - 3},${y + s * 0.45} L${x + s - 3},${y + s - 3} L${x + 3},${y + s - 3} Z`;
const ship = (cx, cy, k) =>
  `M${cx - 11 * k},${cy - 1 * k} L${cx + 11 * k},${cy - 1 * k} L${cx + 7 * k},${cy + 8 * k} L${cx - 7 * k},${cy + 8 * k} Z M${cx - 1 * k},${cy - 2 * k} L${cx - 1 * k},${cy - 13 * k} L${cx + 8 * k},${cy - 4 * k} Z`;
const tower = (x, y, w) => {
  const m = w / 4;
  return `M${x},${y + w} L${x},${y + m} L${x + m},${y + m} L${x + m},${y} L${x + 2 * m},${y} L${x + 2 * m},${y + m} L${x + 3 * m},${y + m} L${x + 3 * m},${y} L${x + w},${y} L${x + w},${y + w} Z`;
};

export const shipPath = ship;

function site(c, number, x, y, s, view, ctx) {
  const colour = c.sites[number - 1];
  const data = CITIES[c.name];
  const value = data.track[number - 1];
  const dark = data.dark.includes(number);
  const triangle = data.triangle === number;
  const shuts = dark || (triangle && view.seats <= 3);
  const neutral = view.seats === 2 && colour >= 2;
  const who = colour === EMPTY ? t("ec.tip.free") : t(neutral ? "ec.tip.warehouse_neutral" : "ec.tip.warehouse_of", { name: ctx.people.name(owner(colour, view.seats)) });
  const why = dark ? `; ${t("ec.tip.dark")}` : triangle ? `; ${t(view.seats <= 3 ? "ec.tip.triangle_shuts" : "ec.tip.triangle")}` : "";
  return svg("g", { class: "target site", "data-target": `site:${c.name}:${number}` },
    svg("rect", { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 3, class: dark ? "ec-site dark" : "ec-site" }),
    svg("g", {}, triangle ? svg("path", { d: `M${x + 2},${y + s - 2} L${x + s * 0.5},${y + s - 2} L${x + 2},${y + s * 0.5} Z`, class: shuts ? "ec-triangle" : "ec-triangle idle" }) : null,
    colour === EMPTY ? null : svg("path", { d: house(x, y, s), fill: ctx.people.colour(owner(colour, view.seats)), class: neutral ? "ec-house neutral" : "ec-house" })),
    svg("text", { x: x + s / 2, y: y + s / 2 + (colour === EMPTY ? 4 : 7), "text-anchor": "middle", class: colour !== EMPTY ? `ec-value light ${ctx.people.onColour(owner(colour, view.seats))}` : dark ? "ec-value light" : "ec-value" }, value),
    tip(`${t("ec.tip.site", { city: title(c.name), n: number, value })}; ${who}${why}`));
}

function lastSpace(c, x, y, s) {
  const value = CITIES[c.name].track[12];
  return svg("g", {},
    svg("rect", { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 3, class: "ec-last" }),
    svg("text", { x: x + s / 2, y: y + s / 2 + 4, "text-anchor": "middle", class: "ec-value" }, value),
    tip(t("ec.tip.last_space", { city: title(c.name), value })));
}

function harbourSpace(c, i, x, y, s, view, ctx) {
  const seat = c.harbours[i];
  const cost = CITIES[c.name].harbours[i];
  const fill = seat === PIRATE ? "#1b1b1b" : seat === EMPTY ? null : ctx.people.colour(seat);
  const whose = seat === PIRATE ? `; ${t("ec.tip.pirate_here")}` : seat !== EMPTY ? `; ${t("ec.tip.ship_here", { name: ctx.people.name(seat) })}` : "";
  return svg("g", { class: "target harbour-space", "data-target": `harbour:${c.name}:${i}` },
    svg("rect", { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: s / 2 - 1, class: "ec-harbour" }),
    fill ? svg("g", {}, svg("path", { d: ship(x + s / 2, y + s / 2 + 2, s / 30), fill, class: "ec-ship" })) : svg("text", { x: x + s / 2, y: y + s / 2 + 4, "text-anchor": "middle", class: "ec-value sea" }, cost),
    tip(t("ec.tip.harbour_space", { city: title(c.name), n: i + 1, cost: t(cost === 1 ? "ec.florin" : "ec.florins", { n: cost }) }) + whose));
}

function fortresses(c, x, y, s, view, ctx) {
  const costs = CITIES[c.name].fortresses;
  const first = TILE_COLS - costs.length;
  const g = svg("g", { class: "target fortresses", "data-target": `fortress:${c.name}` },
    svg("rect", { x: x + first * s + 1, y: y + 1, width: costs.length * s - 2, height: s - 2, rx: 3, class: "ec-fort-row" }),
    tip(t(costs.length === 1 ? "ec.tip.fortresses_one" : "ec.tip.fortresses", { city: title(c.name), n: costs.length, costs: costs.join(` ${t("list.and")} `) })));
  costs.forEach((cost, i) => {
    const seat = c.fortresses[i];
    const fx = x + (first + i) * s;
    g.append(svg("g", {},
      svg("path", { d: tower(fx + 2, y + 2, s - 4), class: seat === EMPTY ? "ec-fort free" : "ec-fort", fill: seat === EMPTY ? null : ctx.people.colour(seat) }),
      svg("text", { x: fx + s / 2, y: y + s * 0.78, "text-anchor": "middle", class: seat === EMPTY ? "ec-value small" : `ec-value small light ${ctx.people.onColour(seat)}` }, cost),
      tip(t("ec.tip.fortress_site", { city: title(c.name), n: i + 1, cost: t(cost === 1 ? "ec.florin" : "ec.florins", { n: cost }) }) + (seat === EMPTY ? "" : `; ${t("ec.tip.fortress_of", { name: ctx.people.name(seat) })}`))));
  });
  return g;
}

/** The ships in this city that have no harbour space (passing through a full city), on the picture. */
function shipsAside(c, view) {
  return view.players.map((p, seat) => (p.ship === c.name && p.harbour === EMPTY ? seat : null)).filter((s) => s !== null);
}

/** A city tile at (x, y) with cell size s; the tile itself is the target for sailing there. */
export function cityTile(c, x, y, s, view, ctx) {
  const data = CITIES[c.name];
  const w = TILE_COLS * s;
  const top = y + HEADER;
  const payday = Math.min(13, (c.frontier || 0) + 1);
  const g = svg("g", { class: "target city", "data-target": `city:${c.name}`, "data-city": c.name },
    svg("rect", { x: x - 3, y, width: w + 6, height: HEADER + 6 * s + 3, rx: 7, class: "ec-tile" }),
    svg("text", { x: x + w / 2, y: y + 13.5, "text-anchor": "middle", class: "ec-name" }, data.title),
    tip(t("ec.tip.city", { city: data.title, harbours: data.harbours.join(` ${t("ec.or")} `), fortresses: data.fortresses.join(` ${t("ec.or")} `), pays: data.track[payday - 1] })));
  const picture = [x + s + 2, top + s + 2, 3 * s - 4, 4 * s - 4];
  const deco = svg("g", {});
  g.append(deco);
  deco.append(svg("rect", { x: picture[0], y: picture[1], width: picture[2], height: picture[3], rx: 4, class: "ec-picture" }));
  deco.append(svg("text", { x: picture[0] + picture[2] / 2, y: picture[1] + 14, "text-anchor": "middle", class: "ec-pays" }, t("ec.pays", { n: data.track[payday - 1] })));
  (c.closed || []).forEach((colour, k) => {
    const hx = picture[0] + 3 + (k % 3) * (s - 2);
    const hy = picture[1] + 20 + Math.floor(k / 3) * (s - 4);
    deco.append(svg("path", { d: house(hx, hy, s - 4), fill: ctx.people.colour(owner(colour, view.seats)), class: "ec-house shut" },
      tip(t("ec.tip.shut", { name: ctx.people.name(owner(colour, view.seats)) }))));
  });
  shipsAside(c, view).forEach((seat, k) => deco.append(svg("path", { d: ship(picture[0] + 14 + k * 20, picture[1] + picture[3] - 10, 0.6), fill: ctx.people.colour(seat), class: "ec-ship" },
    tip(t("ec.tip.no_space", { name: ctx.people.name(seat), city: data.title })))));
  c.harbours.forEach((_, i) => g.append(harbourSpace(c, i, x + i * s, top, s, view, ctx)));
  g.append(fortresses(c, x, top, s, view, ctx));
  for (let n = 1; n <= 12; n += 1) {
    const [col, row] = trackCell(n);
    g.append(site(c, n, x + col * s, top + row * s, s, view, ctx));
  }
  g.append(lastSpace(c, x + 4 * s, top + s, s));
  const [pc, pr] = trackCell(payday);
  g.append(svg("g", {}, svg("circle", { cx: x + (pc + 1) * s - 3, cy: top + pr * s + 3, r: 4, class: "ec-payday" })));
  return g;
}
