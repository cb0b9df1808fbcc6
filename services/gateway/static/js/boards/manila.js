// Manila: the river with its three routes (fields 0–13, the pirates' 13), the boats with their priced
// seats, harbour and shipyard, pirate boat, pilots, insurance, the black market and the last dice.
import { svg, tip } from "../dom.js";
import { t } from "../i18n.js";
import { describe, path } from "./manila-words.js";

const GOODS = ["jade", "silk", "nutmeg", "ginseng"];
// White text on jade, silk and nutmeg reaches 4.5:1; on ginseng the text is dark (`onGood`).
const GOOD_COLOUR = { jade: "#2a8050", silk: "#8e5ba8", nutmeg: "#a0682a", ginseng: "#c9a227" };
const onGood = (good) => (good === "ginseng" ? " on-light" : "");
const SEAT_COSTS = { jade: [3, 4, 5, 5], silk: [3, 4, 5], nutmeg: [2, 3, 4], ginseng: [1, 2, 3] };
const CARGO = { jade: 36, silk: 30, nutmeg: 24, ginseng: 18 };
const TRACK = [0, 5, 10, 20, 30];
const DOCK_COSTS = [4, 3, 2];
const DOCK_PAYS = [6, 8, 15];
const OTHER = {
  pirate: [t("manila.crew.pirate"), 5, t("manila.crew.pirate_what")],
  small_pilot: [t("manila.crew.small_pilot"), 2, t("manila.crew.small_pilot_what")],
  big_pilot: [t("manila.crew.big_pilot"), 5, t("manila.crew.big_pilot_what")],
  insurance: [t("manila.crew.insurance"), 0, t("manila.crew.insurance_what")],
};
const GOOD_NAMES = { jade: t("manila.good.jade"), silk: t("manila.good.silk"), nutmeg: t("manila.good.nutmeg"), ginseng: t("manila.good.ginseng") };
const goodName = (g) => GOOD_NAMES[g] || g;
const NARROW = "(max-width: 700px)";
// Where things go: side by side on a wide screen; on a phone (500 wide, larger type) each boat's card
// sits above its route of narrower fields, and the docks, crew and market stack below.
const WIDE = { width: 1000, fieldW: 44, trackX: 196, rowY: [92, 196, 300], cardY: (r) => [92, 196, 300][r] - 40, docks: [[870, 40], [870, 200]],
  crew: (i) => [6 + i * 150, 372], spotW: 142, market: [0, 0], cargo: (i) => [6 + i * 148, 478], cargoTop: 468, height: 556 };
const NARROW_LAYOUT = { width: 500, fieldW: 32, trackX: 10, rowY: [172, 308, 444], cardY: (r) => 64 + r * 136, docks: [[6, 482], [136, 482]],
  crew: (i) => [266 + (i % 2) * 116, 482 + Math.floor(i / 2) * 80], spotW: 110, market: [6 - 610, 642 - 372], cargo: (i) => [6 + (i % 2) * 246, 860 + Math.floor(i / 2) * 48], cargoTop: 850, height: 826 };
let L = WIDE;
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const letter = (i) => "ABC"[i];

function chip(people, seat, x, y, r) {
  return svg("g", {}, svg("circle", { cx: x, cy: y, r, fill: people.colour(seat), stroke: "#fff", "stroke-width": 1.5 }),
    svg("text", { x, y: y + 4, class: `chip-text ${people.onColour(seat)}`, "text-anchor": "middle" }, people.initial(seat)), tip(people.name(seat)));
}

/** The goods of the boats in the order they were loaded, and their dice, from the events so far. */
function lastRoll(events) {
  let goods = [];
  let roll = null;
  for (const { event } of events) {
    if (!event) continue;
    if (event.type === "BoatsLoaded") (goods = event.goods), (roll = null);
    if (event.type === "DiceRolled") roll = event;
  }
  return roll ? { roll: roll.roll, values: roll.values, goods } : null;
}

function loadingPlan(view, chosen) {
  // While the harbour master builds the loading, the boats are drawn where they would start.
  const ashore = (chosen.find((k) => k.startsWith("ashore:")) || "").slice(7);
  const goods = ashore ? GOODS.filter((g) => g !== ashore) : [];
  const starts = chosen.filter((k) => k.startsWith("start:")).map((k) => Number(k.split(":")[2]));
  return goods.map((good, r) => ({ good, position: r < starts.length ? starts[r] : null, seats: SEAT_COSTS[good].map(() => null), berth: "" }));
}

function boatCard(boat, r, people) {
  const y = L.cardY(r) + 40;
  const g = svg("g", { class: "target boat-card", "data-target": `boat:${boat.good}` },
    svg("rect", { x: 6, y: y - 40, width: 182, height: 80, rx: 10, fill: GOOD_COLOUR[boat.good], class: "card-bg" }),
    svg("text", { x: 16, y: y - 20, class: "card-title" + onGood(boat.good) }, cap(goodName(boat.good))),
    svg("text", { x: 180, y: y - 20, class: "card-sub" + onGood(boat.good), "text-anchor": "end" }, t("manila.cargo_of", { n: CARGO[boat.good] })),
    tip(t("manila.tip.boat", { good: goodName(boat.good), cargo: CARGO[boat.good], costs: SEAT_COSTS[boat.good].join(", ") })));
  boat.seats.forEach((occupant, i) => {
    const x = 16 + i * 42;
    g.append(svg("rect", { x, y: y - 10, width: 36, height: 40, rx: 5, fill: "#fffdf5", stroke: "#0004" }));
    if (occupant === null || occupant === undefined) g.append(svg("text", { x: x + 18, y: y + 16, class: "price", "text-anchor": "middle" }, SEAT_COSTS[boat.good][i]));
    else g.append(chip(people, occupant, x + 18, y + 10, 13));
  });
  return g;
}

function river(view, ctx) {
  const { people, chosen } = ctx;
  const loading = view.phase === "load";
  const boats = loading ? loadingPlan(view, chosen) : view.boats;
  const g = svg("g", { class: "river" });
  const fieldW = L.fieldW;
  if (L === WIDE) g.append(svg("rect", { x: L.trackX - 10, y: 40, width: 15 * fieldW + 14, height: 312, rx: 14, class: "water" }));
  for (let r = 0; r < 3; r++) {
    const boat = boats[r];
    const y = L.rowY[r];
    if (L !== WIDE) g.append(svg("rect", { x: L.trackX - 6, y: y - 26, width: 15 * fieldW + 8, height: 52, rx: 10, class: "water" }));
    for (let p = 0; p <= 14; p++) {
      const x = L.trackX + p * fieldW;
      const target = loading ? `start:${r}:${p}` : boat ? `field:${boat.good}:${p}` : null;
      const what = p === 14 ? t("manila.tip.reaching") : p === 13 ? t("manila.tip.field13") : t("manila.facts.field", { n: p });
      g.append(svg("g", { class: "target field", "data-target": target },
        svg("rect", { x, y: y - 22, width: fieldW - 4, height: 44, rx: 6, class: p === 13 ? "pirates" : p === 14 ? "goal" : "cell" }),
        svg("text", { x: x + fieldW / 2 - 2, y: y + 4, "text-anchor": "middle", class: "field-no" }, p === 13 ? "13" : p === 14 ? "⚓" : p),
        tip(boat ? t("manila.tip.route", { good: cap(goodName(boat.good)), what }) : what)));
      if (p === 13 && (r === 0 || L !== WIDE)) g.append(svg("text", { x: x + fieldW / 2 - 2, y: y - 30, "text-anchor": "middle", class: "small" }, t("manila.pirates")));
    }
    if (!boat) {
      if (r === 1 && !loading) g.append(svg("text", { x: 97, y: L.cardY(r) + 45, "text-anchor": "middle", class: "small" }, t("manila.load_later")));
      continue;
    }
    g.append(boatCard(boat, r, people));
    if (boat.position !== null && !boat.berth) {
      const x = L.trackX + Math.min(boat.position, 14) * fieldW + fieldW / 2 - 2;
      const w = fieldW / 2 - 3;
      g.append(svg("g", { class: "hull", "data-good": boat.good, "data-mark": `hull:${boat.good}` }, // marked when it moves
        svg("path", { d: `M${x - w},${y - 6} L${x + w},${y - 6} L${x + w - 6},${y + 12} L${x - w + 6},${y + 12} Z`, fill: GOOD_COLOUR[boat.good], stroke: "#222" }),
        svg("text", { x, y: y + 7, class: "hull-text" + onGood(boat.good), "text-anchor": "middle" }, boat.position),
        tip(t("manila.tip.boat_on", { good: goodName(boat.good), n: boat.position }))));
    }
  }
  return g;
}

function docks(view, ctx) {
  const { people } = ctx;
  const g = svg("g", { class: "docks" });
  [["harbour", view.harbour], ["shipyard", view.shipyard]].forEach(([kind, owners], d) => {
    const [dx, top] = L.docks[d];
    const box = svg("g", { class: "target dock", "data-target": `dock:${kind}` },
      svg("rect", { x: dx, y: top, width: 124, height: 152, rx: 10, class: kind }),
      svg("text", { x: dx + 62, y: top + 18, "text-anchor": "middle", class: "card-title dark" }, t(kind === "harbour" ? "manila.harbour" : "manila.shipyard")),
      tip(t(kind === "harbour" ? "manila.tip.harbour" : "manila.tip.shipyard")));
    g.append(box);
    for (let i = 0; i < 3; i++) {
      const y = top + 28 + i * 40;
      const docked = view.boats.find((b) => b.berth === kind && b.berth_index === i);
      box.append(svg("g", { class: "target", "data-target": `${kind}_${"abc"[i]}` },
        svg("rect", { x: dx + 6, y, width: 112, height: 36, rx: 6, fill: docked ? GOOD_COLOUR[docked.good] : "#fffdf5", stroke: "#0005" }),
        svg("text", { x: dx + 14, y: y + 23, class: docked ? "slot-text light" + onGood(docked.good) : "slot-text" }, `${letter(i)}  ${DOCK_COSTS[i]}→${DOCK_PAYS[i]}`),
        owners[i] === null ? null : chip(people, owners[i], dx + 100, y + 18, 12),
        tip(t(kind === "harbour" ? "manila.tip.harbour_field" : "manila.tip.shipyard_field", { letter: letter(i), cost: DOCK_COSTS[i], pays: DOCK_PAYS[i], nth: t(["manila.tip.first", "manila.tip.second", "manila.tip.third"][i]) })
          + (docked ? ` (${t("manila.tip.docked", { good: goodName(docked.good) })})` : ""))));
    }
  });
  return g;
}

function crew(view, ctx) {
  const { people } = ctx;
  const g = svg("g", { class: "crew" });
  const spots = [["pirate", view.pirates], ["small_pilot", [view.small_pilot]], ["big_pilot", [view.big_pilot]], ["insurance", [view.insurance]]];
  spots.forEach(([key, owners], i) => {
    const [x, top] = L.crew(i);
    const [name, cost, what] = OTHER[key];
    g.append(svg("g", { class: "target spot", "data-target": key },
      svg("rect", { x, y: top, width: L.spotW, height: 70, rx: 10, class: key === "pirate" ? "pirate-boat" : "spot-bg" }),
      svg("text", { x: x + 10, y: top + 20, class: key === "pirate" ? "card-title" : "card-title dark" }, name),
      svg("text", { x: x + L.spotW - 10, y: top + 62, "text-anchor": "end", class: key === "pirate" ? "card-sub" : "card-sub dark" }, key === "insurance" ? t("manila.gets_10") : t("manila.costs", { n: cost })),
      owners.map((o, j) => (o === null || o === undefined ? svg("rect", { x: x + 12 + j * 36, y: top + 30, width: 30, height: 30, rx: 5, class: "free-seat" }) : chip(people, o, x + 27 + j * 36, top + 45, 13))),
      tip(`${name}${cost ? ` (${t("manila.pesos", { n: cost })})` : ""}: ${what}`)));
  });
  return g;
}

function market(view) {
  const g = svg("g", { class: "market", transform: `translate(${L.market[0]},${L.market[1]})` });
  g.append(svg("rect", { x: 610, y: 372, width: 384, height: 178, rx: 10, class: "spot-bg" }),
    svg("text", { x: 620, y: 392, class: "card-title dark" }, t("manila.facts.market")),
    svg("text", { x: 984, y: 392, "text-anchor": "end", class: "card-sub dark" }, t("manila.left")));
  TRACK.forEach((v, j) => g.append(svg("text", { x: 748 + j * 44, y: 392, "text-anchor": "middle", class: "small" }, v)));
  GOODS.forEach((good, i) => {
    const y = 402 + i * 36;
    const row = svg("g", { class: "target share-row", "data-target": `share:${good}` },
      svg("rect", { x: 616, y, width: 372, height: 32, rx: 6, fill: "#fffdf5", stroke: "#0002" }),
      svg("rect", { x: 620, y: y + 5, width: 70, height: 22, rx: 4, fill: GOOD_COLOUR[good] }),
      // "Ginseng" spilled over its chip's right edge: a longer name is squeezed into it
      svg("text", { x: 626, y: y + 21, class: "slot-text light" + onGood(good), textLength: goodName(good).length > 6 ? 58 : null, lengthAdjust: "spacingAndGlyphs" }, cap(goodName(good))),
      tip(t("manila.tip.market", { good: cap(goodName(good)), worth: TRACK[view.market[i]], left: view.supply[i] })));
    TRACK.forEach((_, j) => row.append(svg("circle", { cx: 748 + j * 44, cy: y + 16, r: view.market[i] === j ? 11 : 4, class: view.market[i] === j ? "marker" : "dot", fill: view.market[i] === j ? GOOD_COLOUR[good] : null })));
    row.append(svg("text", { x: 970, y: y + 21, "text-anchor": "middle", class: "slot-text" }, view.supply[i]));
    g.append(row);
  });
  return g;
}

function cargoTiles(view, ctx) {
  // The loading: which good stays ashore (clickable tiles), shown while the harbour master decides.
  if (view.phase !== "load") return null;
  return svg("g", { class: "cargo" }, svg("text", { x: 6, y: L.cargoTop, class: "card-title dark" }, t("manila.cargo")),
    GOODS.map((good, i) => svg("g", { class: "target", "data-target": `ashore:${good}` },
      svg("rect", { x: L.cargo(i)[0], y: L.cargo(i)[1], width: 140, height: 40, rx: 8, fill: GOOD_COLOUR[good] }),
      svg("text", { x: L.cargo(i)[0] + 10, y: L.cargo(i)[1] + 25, class: "card-title" + onGood(good) }, `${cap(goodName(good))} · ${CARGO[good]}`),
      tip(t("manila.tip.ashore", { good: goodName(good) })))));
}

function dice(view, ctx) {
  const last = lastRoll(ctx.events || []);
  const g = svg("g", { class: "dice" });
  const hm = view.harbour_master;
  g.append(svg("text", { x: 6, y: 24, class: "headline" }, t("manila.voyage", { n: view.voyage }),
    hm === null || hm === undefined ? "" : ` · ${t("manila.harbour_master", { name: ctx.people.name(hm) })}`,
    view.phase === "auction" && view.high_bid ? ` · ${t("manila.high_bid", { n: view.high_bid, name: ctx.people.name(view.high_bidder) })}` : ""));
  if (!last || ["over", "auction", "buy_share", "load"].includes(view.phase)) return g;
  const [dx, dy] = L === WIDE ? [610, 4] : [6 + 60, 34];
  g.append(svg("text", { x: dx - 10, y: dy + 20, class: "small", "text-anchor": "end" }, t("manila.roll", { n: last.roll })));
  last.values.forEach((v, i) => g.append(svg("g", {},
    svg("rect", { x: dx + i * 34, y: dy, width: 28, height: 28, rx: 6, fill: GOOD_COLOUR[last.goods[i]] || "#555" }),
    svg("text", { x: dx + 14 + i * 34, y: dy + 20, "text-anchor": "middle", class: "die" + onGood(last.goods[i]) }, v), tip(`${last.goods[i] ? goodName(last.goods[i]) : t("manila.tip.die")}: ${v}`))));
  return g;
}

function draw(view, ctx) {
  const narrow = typeof window !== "undefined" && window.matchMedia && window.matchMedia(NARROW).matches;
  L = narrow ? NARROW_LAYOUT : WIDE;
  // While loading, the cargo tiles lie below the rest; the black market must not be cut off either.
  const height = view.phase === "load" ? Math.max(L.height, L.cargo(3)[1] + 48) : L.height;
  return svg("svg", { viewBox: `0 0 ${L.width} ${height}`, class: `board board-manila${narrow ? " narrow" : ""}`, role: "img", "aria-label": t("manila.board") },
    dice(view, ctx), river(view, ctx), docks(view, ctx), crew(view, ctx), market(view), cargoTiles(view, ctx));
}

export default {
  draw,
  scoreName: t("manila.wealth"),
  money(view, seat) {
    const p = view.players[seat];
    const cash = t(Math.abs(p.cash) === 1 ? "manila.peso" : "manila.pesos", { n: p.cash });
    // One's own shares are named (the view holds them for their owner alone), the others' counted.
    const held = p.shares ? (p.shares.length ? t("manila.shares_named", { list: p.shares.map(goodName).join(", ") }) : t("manila.no_shares"))
      : t(p.share_count === 1 ? "manila.share_count_one" : "manila.share_count", { n: p.share_count });
    const pledged = p.mortgaged ? (p.mortgaged.length ? ` (${t("manila.pledged_named", { list: p.mortgaged.map(goodName).join(", ") })})` : "")
      : p.mortgaged_count ? ` (${t("manila.pledged_count", { n: p.mortgaged_count })})` : "";
    return `${cash} · ${held}${pledged}`;
  },
  /** The key numbers beside the choice on a phone: the boats (field, cargo's worth), the black market's
   * prices, the crew's places (who sits there or its cost) and the viewer's cash. */
  facts(view, ctx) {
    const who = (s) => (s === null || s === undefined ? null : ctx.people.name(s));
    const spot = (key, seat) => who(seat) || (key === "insurance" ? t("manila.free_insurance") : t("manila.free", { cost: OTHER[key][1] }));
    const pirates = view.pirates.map((s) => spot("pirate", s)).join(", ");
    const lines = [
      [t("manila.facts.boats"), view.boats.map((b) => t("manila.facts.boat", { good: goodName(b.good), cargo: CARGO[b.good], at: b.berth ? t(b.berth === "harbour" ? "manila.berth.harbour" : "manila.berth.shipyard") : t("manila.facts.field", { n: b.position }) })).join(" · ")
        || t("manila.facts.not_loaded", { list: GOODS.map((g) => `${goodName(g)} ${CARGO[g]}`).join(" · ") })],
      [t("manila.facts.market"), GOODS.map((g, i) => `${goodName(g)} ${TRACK[view.market[i]]}`).join(" · ")],
      [t("manila.facts.crew"), t("manila.facts.crew_line", { pirates, small: spot("small_pilot", view.small_pilot), big: spot("big_pilot", view.big_pilot), insurance: spot("insurance", view.insurance) })],
    ];
    if (ctx.viewer !== null && ctx.viewer !== undefined) lines.push([t("manila.facts.cash"), t("manila.pesos", { n: view.players[ctx.viewer].cash })]);
    return lines;
  },
  breakdown(view, outcome, seat) {
    const p = view.players[seat];
    const price = (g) => TRACK[view.market[GOODS.indexOf(g)]];
    const worth = (p.shares || []).reduce((sum, g) => sum + price(g), 0);
    const held = (p.shares || []).map((g) => t("manila.share_at", { good: goodName(g), price: price(g) })).join(", ");
    const parts = [[t("manila.cash"), p.cash], [held ? t("manila.shares_worth", { list: held }) : t("manila.no_shares"), worth]];
    if ((p.mortgaged || []).length) parts.push([t("manila.loans"), -15 * p.mortgaged.length]);
    return parts;
  },
  prompt(view) {
    const prompts = { auction: t("manila.prompt.auction"), buy_share: t("manila.prompt.buy_share"), load: t("manila.prompt.load"), place: t("manila.prompt.place"),
      pilot: t(view.pilot_turn === "big" ? "manila.prompt.pilot_big" : "manila.prompt.pilot_small"), boarding: t("manila.prompt.boarding"), captain: t("manila.prompt.captain"), plunder: t("manila.prompt.plunder") };
    return prompts[view.phase] || view.phase.replace("_", " ");
  },
  path,
  describe,
};
