// El Capitán: the Mediterranean with its cities where they lie (and Porto, Lisboa, Islas Canarias when in
// play), each city's tile as printed (elcapitan-city.js), the lanes of one seal between neighbours, the
// ships in their cities, at the bank or not yet sailed, the open sailing cards and your hand.
import { svg, tip } from "../dom.js";
import { t } from "../i18n.js";
import { CARDS, CITIES, cardText, title } from "./elcapitan-data.js";
import { cityTile, shipPath } from "./elcapitan-city.js";
import { canaryDots, coastPath, layout, PLACES } from "./elcapitan-map.js";
import { describe, path } from "./elcapitan-words.js";

const NARROW = "(max-width: 700px)";
const START_MONEY = 20; // domain/elcapitan/data.py START_MONEY

const viewerOf = (view, ctx) => (ctx.viewer === null || ctx.viewer === undefined ? null : view.players[ctx.viewer]);

/** Lanes of one seal: orthogonal neighbours on the board's grid, drawn between the tiles' centres. */
function lanes(names, geo) {
  const centre = (n) => [geo.tiles[n][0] + geo.tw / 2, geo.tiles[n][1] + geo.th / 2];
  const g = svg("g", { class: "ec-lanes" });
  names.forEach((a, i) => names.slice(i + 1).forEach((b) => {
    const [A, B] = [CITIES[a], CITIES[b]];
    if (Math.abs(A.row - B.row) + Math.abs(A.col - B.col) !== 1) return;
    const [[x1, y1], [x2, y2]] = [centre(a), centre(b)];
    g.append(svg("line", { x1, y1, x2, y2, class: "ec-lane" }));
  }));
  return g;
}

/** Each city's true place, a pin joined to its tile. */
function pins(names, geo) {
  const g = svg("g", { class: "ec-pins" });
  for (const n of names) {
    const [px, py] = geo.project(PLACES[n]);
    const [x, y] = geo.tiles[n];
    const tx = Math.max(x, Math.min(x + geo.tw, px));
    const ty = Math.max(y, Math.min(y + geo.th, py));
    if (tx !== px || ty !== py) g.append(svg("line", { x1: px, y1: py, x2: tx, y2: ty, class: "ec-leader" }));
    g.append(svg("circle", { cx: px, cy: py, r: 3.5, class: "ec-pin" }, tip(t("ec.tip.lies_here", { city: title(n) }))));
  }
  return g;
}

function shipsIn(view, where) {
  return view.players.map((p, s) => (p.ship === where ? s : null)).filter((s) => s !== null);
}

function bank(view, ctx, [x, y, w, h]) {
  const here = shipsIn(view, "bank");
  return svg("g", { class: "target", "data-target": "bank" },
    svg("rect", { x, y, width: w, height: h, rx: 10, class: "bank" }),
    svg("text", { x: x + w / 2, y: y + 20, "text-anchor": "middle", class: "card-title dark" }, t("ec.bank")),
    svg("text", { x: x + w / 2, y: y + 37, "text-anchor": "middle", class: "small" }, t("ec.bank_loans")),
    svg("g", {}, here.map((s, k) => svg("path", { d: shipPath(x + 18 + (k % 4) * 24, y + 62 + Math.floor(k / 4) * 24, 0.8), fill: ctx.people.colour(s), class: "ec-ship" }, tip(t("ec.tip.at_bank", { name: ctx.people.name(s) }))))),
    tip(t("ec.tip.bank")));
}

function atSea(view, ctx, [x, y, w, h]) {
  const waiting = shipsIn(view, "");
  if (!waiting.length) return null;
  return svg("g", {},
    svg("rect", { x, y, width: w, height: h, rx: 10, class: "ec-at-sea" }),
    svg("text", { x: x + 10, y: y + 17, class: "small" }, t("ec.not_sailed")),
    waiting.map((s, k) => svg("path", { d: shipPath(x + 20 + k * 26, y + 44, 0.8), fill: ctx.people.colour(s), class: "ec-ship" }, tip(t("ec.tip.not_entered", { name: ctx.people.name(s) })))));
}

function map(view, ctx, geo, head) {
  const names = view.cities.map((c) => c.name).filter((n) => CITIES[n]);
  const g = svg("g", { transform: `translate(0,${head})` },
    svg("clipPath", { id: "ec-map-edge" }, svg("rect", { x: 0, y: 0, width: geo.width, height: geo.height, rx: 12 })),
    svg("rect", { x: 0, y: 0, width: geo.width, height: geo.height, rx: 12, class: "ec-sea" }),
    svg("g", { "clip-path": "url(#ec-map-edge)" },
      svg("path", { d: coastPath(geo.project), class: "ec-land" }),
      canaryDots(geo.project).map(([cx, cy]) => svg("circle", { cx, cy, r: 3, class: "ec-land" }))),
    geo.narrow ? null : pins(names, geo),
    lanes(names, geo));
  for (const c of view.cities) {
    if (!geo.tiles[c.name]) continue;
    const [x, y] = geo.tiles[c.name];
    g.append(cityTile(c, x, y, geo.s, view, ctx));
  }
  g.append(bank(view, ctx, geo.boxes.bank), atSea(view, ctx, geo.boxes.sea));
  return g;
}

const CARD_H = 50;

function card(id, x, y, w, key, ctx, note) {
  const c = CARDS[id] || {};
  const link = c.kind === "link";
  const seals = link ? [] : Array.from({ length: c.seals || 0 }, (_, i) => svg("circle", { cx: x + 12 + i * 12, cy: y + 34, r: 4.5, class: "ec-seal" }));
  return svg("g", { class: "target card", "data-target": key },
    svg("rect", { x, y, width: w, height: CARD_H, rx: 7, class: link ? "card-link" : "card-dest" }),
    svg("text", { x: x + 7, y: y + 19, class: "card-line" }, link ? `${title(c.cities[0])} ↔` : title(c.city)),
    svg("text", { x: link ? x + 7 : x + 10 + 12 * (c.seals || 0), y: y + 38, class: "card-line" }, link ? title(c.cities[1]) : t(c.seals === 1 ? "ec.seal" : "ec.seals", { n: c.seals })),
    svg("g", {}, seals),
    svg("text", { x: x + w - 7, y: y + 42, "text-anchor": "end", class: "card-cost" }, `${c.cost} fl`),
    tip(`${cardText(id)}: ${link ? t("ec.tip.link") : t(c.seals === 1 ? "ec.tip.dest_one" : "ec.tip.dest", { city: title(c.city), n: c.seals })}; ${t("ec.tip.costs", { cost: t(c.cost === 1 ? "ec.florin" : "ec.florins", { n: c.cost }) })}${note || ""}`));
}

/** A labelled row of cards, wrapped to the board's width; returns [group, height]. */
function cardRow(label, ids, keyOf, top, geo, ctx, note) {
  const perRow = geo.narrow ? 3 : 6;
  const gap = 6;
  const w = Math.min(160, (geo.width - 12 - (perRow - 1) * gap) / perRow);
  const g = svg("g", {}, svg("text", { x: 6, y: top + 13, class: "small" }, label));
  ids.forEach((id, i) => g.append(card(id, 6 + (i % perRow) * (w + gap), top + 20 + Math.floor(i / perRow) * (CARD_H + gap), w, keyOf(id), ctx, note)));
  const rows = Math.max(0, Math.ceil(ids.length / perRow));
  return [g, 20 + rows * (CARD_H + gap) + 4];
}

function cards(view, ctx, geo, top) {
  const g = svg("g", {});
  let y = top;
  const me = viewerOf(view, ctx);
  const rows = [
    [t("ec.destinations_pile", { n: view.destinations.draw_count }), view.destinations.display, (id) => `buy:${id}`],
    [t("ec.interconnections_pile", { n: view.interconnections.draw_count }), view.interconnections.display, (id) => `buy:${id}`],
  ];
  if (me) rows.push([t(me.hand.length ? "ec.hand" : "ec.hand_empty"), me.hand, (id) => `hand:${id}`, ` (${t("ec.in_hand")})`]);
  for (const [label, ids, keyOf, note] of rows) {
    const [row, h] = cardRow(label, ids, keyOf, y, geo, ctx, note);
    g.append(row);
    y += h;
  }
  return [g, y];
}

/** The map's key: drawn samples and what they mean (two lines on a phone). */
function legend(view, geo, top) {
  const items = [
    [(x, y) => svg("line", { x1: x, y1: y - 4, x2: x + 18, y2: y - 4, class: "ec-lane" }), t("ec.legend.lane")],
    [(x, y) => svg("circle", { cx: x + 6, cy: y - 4, r: 4, class: "ec-payday" }), t("ec.legend.payday")],
    [(x, y) => svg("rect", { x, y: y - 11, width: 12, height: 12, rx: 2, class: "ec-site dark" }), t("ec.legend.shuts")],
    [(x, y) => svg("path", { d: `M${x},${y + 1} L${x + 12},${y + 1} L${x},${y - 11} Z`, class: "ec-triangle" }), t(view.seats <= 3 ? "ec.legend.shuts_too" : "ec.legend.few_players")],
  ];
  const g = svg("g", { class: "ec-legend" });
  let x = 6;
  let y = top + 14;
  for (const [sample, text] of items) {
    const w = 24 + text.length * 6.9;
    if (x + w > geo.width) {
      x = 6;
      y += 18;
    }
    g.append(sample(x, y), svg("text", { x: x + 22, y, class: "small" }, text));
    x += w + 14;
  }
  return [g, y - top + 8];
}

/** What the table is at: the phase and round, then who is doing what (a second line on a phone). */
function headline(view, ctx, narrow) {
  const current = view.to_act.length ? view.to_act[0] : view.current;
  const doing = { turn: current === ctx.viewer && !ctx.replaying && !ctx.standIn ? t("tables.your_turn") : t("ec.sailing", { name: ctx.people.name(current) }), loans: t("ec.stage.loans"), choose_start: t("ec.stage.choose_start") }[view.stage];
  const more = [doing, view.pirate ? t("ec.pirate_at", { city: title(view.pirate) }) : "", view.phase_ending ? t("ec.phase_ending") : ""].filter(Boolean).join(" · ");
  const phase = t("ec.phase_round", { phase: view.phase, round: view.round });
  if (!narrow) return svg("text", { x: 6, y: 24, class: "headline" }, more ? `${phase} · ${more}` : phase);
  return svg("text", { x: 6, y: 20, class: "headline" }, phase, more ? svg("tspan", { x: 6, dy: 21, class: "ec-subline" }, more) : null);
}

function draw(view, ctx) {
  const narrow = typeof window !== "undefined" && window.matchMedia && window.matchMedia(NARROW).matches;
  const geo = layout(view.cities.map((c) => c.name), narrow);
  const head = narrow ? 52 : 34;
  const [key, keyHeight] = legend(view, geo, head + geo.height + 2);
  const [lower, bottom] = cards(view, ctx, geo, head + geo.height + keyHeight + 6);
  return svg("svg", { viewBox: `0 0 ${geo.width} ${bottom}`, class: `board board-elcapitan${narrow ? " narrow" : ""}`, role: "img", "aria-label": t("ec.board") },
    headline(view, ctx, narrow), map(view, ctx, geo, head), key, lower);
}

export default {
  draw,
  scoreName: t("ec.money"),
  money(view, seat) {
    const p = view.players[seat];
    const loans = (p.loans || []).filter((l) => !l.settled).length;
    return `${p.money} fl · ${t("ec.wh", { n: p.warehouses })}${loans ? ` · ${t(loans === 1 ? "ec.loan_one" : "ec.loans_n", { n: loans })}` : ""}${p.ship ? ` · ${title(p.ship)}` : ""}`;
  },
  /** The key numbers beside the choice on a phone: the open cards' prices and the viewer's money. */
  facts(view, ctx) {
    const priced = (ids) => ids.map((id) => `${cardText(id)}: ${(CARDS[id] || {}).cost} fl`).join(" · ");
    const lines = [[t("ec.destinations"), priced(view.destinations.display)], [t("ec.interconnections"), priced(view.interconnections.display)]];
    const me = viewerOf(view, ctx);
    if (me) lines.push([t("ec.your_money"), `${me.money} fl`]);
    return lines;
  },
  /** The rulebook keeps money, loans (laid face up) and bought sailing cards open: each seat's hand and
   * loans, for everyone. */
  holdings(view, seat) {
    const p = view.players[seat];
    const loans = (p.loans || []).map((l) => `${l.amount} fl${l.extended ? ` (${t("ec.extended")})` : ""}`);
    return [[t("ec.cards"), p.hand.map(cardText)], [t("ec.loans"), loans]];
  },
  breakdown(view, outcome, seat, ctx) {
    const sums = { majorities: 0, proliferation: 0, fortresses: 0, bonuses: 0 };
    for (const { event } of ctx.events || []) {
      if (event && event.type === "PaydayHeld") for (const k of Object.keys(sums)) sums[k] += event[k][seat] || 0;
    }
    // The rulebook's score is the money in hand: the start money, what the paydays paid, and the rest
    // (cards, sailing, building, fortresses paid for; loans taken and repaid), so the parts add up.
    const paid = sums.majorities + sums.proliferation + sums.fortresses + sums.bonuses;
    return [[t("ec.part.start"), START_MONEY], [t("ec.part.majorities"), sums.majorities], [t("ec.part.proliferation"), sums.proliferation], [t("ec.part.fortresses"), sums.fortresses],
      [t("ec.part.bonuses"), sums.bonuses], [t("ec.part.spent"), outcome.scores[seat] - START_MONEY - paid]];
  },
  prompt(view) {
    return { turn: t("ec.prompt.turn"), loans: t("ec.prompt.loans"), choose_start: t("ec.prompt.choose_start") }[view.stage] || "";
  },
  path,
  describe,
};
