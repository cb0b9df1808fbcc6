// Manila: the river with its three routes (fields 0–13, the pirates' 13), the boats with their priced
// seats, harbour and shipyard, pirate boat, pilots, insurance, the black market and the last dice.
import { svg, tip } from "../dom.js";
import { describe, path } from "./manila-words.js";

const GOODS = ["jade", "silk", "nutmeg", "ginseng"];
const GOOD_COLOUR = { jade: "#2e8b57", silk: "#8e5ba8", nutmeg: "#a0682a", ginseng: "#c9a227" };
const SEAT_COSTS = { jade: [3, 4, 5, 5], silk: [3, 4, 5], nutmeg: [2, 3, 4], ginseng: [1, 2, 3] };
const CARGO = { jade: 36, silk: 30, nutmeg: 24, ginseng: 18 };
const TRACK = [0, 5, 10, 20, 30];
const DOCK_COSTS = [4, 3, 2];
const DOCK_PAYS = [6, 8, 15];
const OTHER = {
  pirate: ["Pirate", 5, "boards a boat on field 13 after the second roll, plunders after the third"],
  small_pilot: ["Small pilot", 2, "moves one boat one field forward or back before the last roll"],
  big_pilot: ["Big pilot", 5, "moves boats up to two fields in all before the last roll"],
  insurance: ["Insurance", 0, "gets 10 pesos now; pays the harbour or shipyard claims of lost boats"],
};
const FIELD_W = 44;
const TRACK_X = 196;
const ROW_Y = [92, 196, 300];
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const letter = (i) => "ABC"[i];

function chip(people, seat, x, y, r) {
  return svg("g", {}, svg("circle", { cx: x, cy: y, r, fill: people.colour(seat), stroke: "#fff", "stroke-width": 1.5 }),
    svg("text", { x, y: y + 4, class: "chip-text", "text-anchor": "middle" }, people.initial(seat)), tip(people.name(seat)));
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
  const y = ROW_Y[r];
  const g = svg("g", { class: "target boat-card", "data-target": `boat:${boat.good}` },
    svg("rect", { x: 6, y: y - 40, width: 182, height: 80, rx: 10, fill: GOOD_COLOUR[boat.good], class: "card-bg" }),
    svg("text", { x: 16, y: y - 20, class: "card-title" }, cap(boat.good)),
    svg("text", { x: 180, y: y - 20, class: "card-sub", "text-anchor": "end" }, `cargo ${CARGO[boat.good]}`),
    tip(`The ${boat.good} boat: ${CARGO[boat.good]} pesos shared by its crew if it reaches the harbour; seats cost ${SEAT_COSTS[boat.good].join(", ")}`));
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
  g.append(svg("rect", { x: TRACK_X - 10, y: 40, width: 15 * FIELD_W + 14, height: 312, rx: 14, class: "water" }));
  for (let r = 0; r < 3; r++) {
    const boat = boats[r];
    const y = ROW_Y[r];
    for (let p = 0; p <= 14; p++) {
      const x = TRACK_X + p * FIELD_W;
      const target = loading ? `start:${r}:${p}` : boat ? `field:${boat.good}:${p}` : null;
      const what = p === 14 ? "reaching the harbour" : p === 13 ? "field 13: pirates board or plunder a boat stopping here" : `field ${p}`;
      g.append(svg("g", { class: "target field", "data-target": target },
        svg("rect", { x, y: y - 22, width: FIELD_W - 4, height: 44, rx: 6, class: p === 13 ? "pirates" : p === 14 ? "goal" : "cell" }),
        svg("text", { x: x + 20, y: y + 4, "text-anchor": "middle", class: "field-no" }, p === 13 ? "13" : p === 14 ? "⚓" : p),
        tip(boat ? `${cap(boat.good)} route, ${what}` : what)));
      if (p === 13 && r === 0) g.append(svg("text", { x: x + 20, y: 34, "text-anchor": "middle", class: "small" }, "pirates"));
    }
    if (!boat) {
      if (r === 1 && !loading) g.append(svg("text", { x: 97, y: y + 5, "text-anchor": "middle", class: "small" }, "boats load after the auction"));
      continue;
    }
    g.append(boatCard(boat, r, people));
    if (boat.position !== null && !boat.berth) {
      const x = TRACK_X + Math.min(boat.position, 14) * FIELD_W + 20;
      g.append(svg("g", { class: "hull", "data-good": boat.good },
        svg("path", { d: `M${x - 19},${y - 6} L${x + 19},${y - 6} L${x + 13},${y + 12} L${x - 13},${y + 12} Z`, fill: GOOD_COLOUR[boat.good], stroke: "#222" }),
        svg("text", { x, y: y + 7, class: "hull-text", "text-anchor": "middle" }, boat.position),
        tip(`The ${boat.good} boat on field ${boat.position}`)));
    }
  }
  return g;
}

function docks(view, ctx) {
  const { people } = ctx;
  const g = svg("g", { class: "docks" });
  [["harbour", view.harbour, 40], ["shipyard", view.shipyard, 200]].forEach(([kind, owners, top]) => {
    const box = svg("g", { class: "target dock", "data-target": `dock:${kind}` },
      svg("rect", { x: 870, y: top, width: 124, height: 152, rx: 10, class: kind }),
      svg("text", { x: 932, y: top + 18, "text-anchor": "middle", class: "card-title dark" }, cap(kind)),
      tip(kind === "harbour" ? "The harbour: a boat past field 13 docks here and its crew shares the cargo" : "The shipyard: boats that do not make it end here and pay nothing"));
    g.append(box);
    for (let i = 0; i < 3; i++) {
      const y = top + 28 + i * 40;
      const docked = view.boats.find((b) => b.berth === kind && b.berth_index === i);
      box.append(svg("g", { class: "target", "data-target": `${kind}_${"abc"[i]}` },
        svg("rect", { x: 876, y, width: 112, height: 36, rx: 6, fill: docked ? GOOD_COLOUR[docked.good] : "#fffdf5", stroke: "#0005" }),
        svg("text", { x: 884, y: y + 23, class: "slot-text" }, `${letter(i)}  ${DOCK_COSTS[i]}→${DOCK_PAYS[i]}`),
        owners[i] === null ? null : chip(people, owners[i], 970, y + 18, 12),
        tip(`${cap(kind)} ${letter(i)}: costs ${DOCK_COSTS[i]}, pays ${DOCK_PAYS[i]} if a ${i + 1}${["st", "nd", "rd"][i]} boat ${kind === "harbour" ? "docks in the harbour" : "ends in the shipyard"}${docked ? ` (the ${docked.good} boat is here)` : ""}`)));
    }
  });
  return g;
}

function crew(view, ctx) {
  const { people } = ctx;
  const g = svg("g", { class: "crew" });
  const spots = [["pirate", view.pirates], ["small_pilot", [view.small_pilot]], ["big_pilot", [view.big_pilot]], ["insurance", [view.insurance]]];
  spots.forEach(([key, owners], i) => {
    const x = 6 + i * 150;
    const [name, cost, what] = OTHER[key];
    g.append(svg("g", { class: "target spot", "data-target": key },
      svg("rect", { x, y: 372, width: 142, height: 70, rx: 10, class: key === "pirate" ? "pirate-boat" : "spot-bg" }),
      svg("text", { x: x + 10, y: 392, class: key === "pirate" ? "card-title" : "card-title dark" }, name),
      svg("text", { x: x + 132, y: 434, "text-anchor": "end", class: key === "pirate" ? "card-sub" : "card-sub dark" }, key === "insurance" ? "gets 10" : `costs ${cost}`),
      owners.map((o, j) => (o === null || o === undefined ? svg("rect", { x: x + 12 + j * 36, y: 402, width: 30, height: 30, rx: 5, class: "free-seat" }) : chip(people, o, x + 27 + j * 36, 417, 13))),
      tip(`${name}${cost ? ` (${cost} pesos)` : ""}: ${what}`)));
  });
  return g;
}

function market(view) {
  const g = svg("g", { class: "market" });
  g.append(svg("rect", { x: 610, y: 372, width: 384, height: 178, rx: 10, class: "spot-bg" }),
    svg("text", { x: 620, y: 392, class: "card-title dark" }, "Black market"),
    svg("text", { x: 984, y: 392, "text-anchor": "end", class: "card-sub dark" }, "left"));
  TRACK.forEach((v, j) => g.append(svg("text", { x: 748 + j * 44, y: 392, "text-anchor": "middle", class: "small" }, v)));
  GOODS.forEach((good, i) => {
    const y = 402 + i * 36;
    const row = svg("g", { class: "target share-row", "data-target": `share:${good}` },
      svg("rect", { x: 616, y, width: 372, height: 32, rx: 6, fill: "#fffdf5", stroke: "#0002" }),
      svg("rect", { x: 620, y: y + 5, width: 70, height: 22, rx: 4, fill: GOOD_COLOUR[good] }),
      svg("text", { x: 626, y: y + 21, class: "slot-text light" }, cap(good)),
      tip(`${cap(good)}: a share is worth ${TRACK[view.market[i]]} at the end; ${view.supply[i]} left to buy`));
    TRACK.forEach((_, j) => row.append(svg("circle", { cx: 748 + j * 44, cy: y + 16, r: view.market[i] === j ? 11 : 4, class: view.market[i] === j ? "marker" : "dot", fill: view.market[i] === j ? GOOD_COLOUR[good] : null })));
    row.append(svg("text", { x: 970, y: y + 21, "text-anchor": "middle", class: "slot-text" }, view.supply[i]));
    g.append(row);
  });
  return g;
}

function cargoTiles(view, ctx) {
  // The loading: which good stays ashore (clickable tiles), shown while the harbour master decides.
  if (view.phase !== "load") return null;
  return svg("g", { class: "cargo" }, svg("text", { x: 6, y: 468, class: "card-title dark" }, "Cargo: leave one ashore"),
    GOODS.map((good, i) => svg("g", { class: "target", "data-target": `ashore:${good}` },
      svg("rect", { x: 6 + i * 148, y: 478, width: 140, height: 40, rx: 8, fill: GOOD_COLOUR[good] }),
      svg("text", { x: 16 + i * 148, y: 503, class: "card-title" }, `${cap(good)} · ${CARGO[good]}`),
      tip(`Leave ${good} ashore this voyage`))));
}

function dice(view, ctx) {
  const last = lastRoll(ctx.events || []);
  const g = svg("g", { class: "dice" });
  const hm = view.harbour_master;
  g.append(svg("text", { x: 6, y: 24, class: "headline" }, `Voyage ${view.voyage}`,
    hm === null || hm === undefined ? "" : ` · harbour master ${ctx.people.name(hm)}`, view.phase === "auction" && view.high_bid ? ` · high bid ${view.high_bid} (${ctx.people.name(view.high_bidder)})` : ""));
  if (!last || ["over", "auction", "buy_share", "load"].includes(view.phase)) return g;
  g.append(svg("text", { x: 600, y: 24, class: "small", "text-anchor": "end" }, `roll ${last.roll}`));
  last.values.forEach((v, i) => g.append(svg("g", {},
    svg("rect", { x: 610 + i * 34, y: 4, width: 28, height: 28, rx: 6, fill: GOOD_COLOUR[last.goods[i]] || "#555" }),
    svg("text", { x: 624 + i * 34, y: 24, "text-anchor": "middle", class: "die" }, v), tip(`${last.goods[i] || "die"}: ${v}`))));
  return g;
}

function draw(view, ctx) {
  const height = view.phase === "load" ? 560 : 556;
  return svg("svg", { viewBox: `0 0 1000 ${height}`, class: "board board-manila", role: "img", "aria-label": "Manila board" },
    dice(view, ctx), river(view, ctx), docks(view, ctx), crew(view, ctx), market(view), cargoTiles(view, ctx));
}

export default {
  draw,
  scoreName: "Wealth (pesos)",
  money(view, seat) {
    const p = view.players[seat];
    return `${p.cash} pesos · ${p.share_count} share${p.share_count === 1 ? "" : "s"}${p.mortgaged_count ? ` (${p.mortgaged_count} pledged)` : ""}`;
  },
  breakdown(view, outcome, seat) {
    const p = view.players[seat];
    const worth = (p.shares || []).reduce((sum, g) => sum + TRACK[view.market[GOODS.indexOf(g)]], 0);
    const parts = [["cash", p.cash], [`shares (${(p.shares || []).join(", ") || "none"})`, worth]];
    if ((p.mortgaged || []).length) parts.push(["loans", -15 * p.mortgaged.length]);
    return parts;
  },
  prompt(view) {
    const prompts = { auction: "bid for the harbour master's office", buy_share: "the harbour master may buy a share", load: "load the boats: one good stays ashore, then the start fields",
      place: "place an accomplice", pilot: `the ${view.pilot_turn} pilot may move boats`, boarding: "pirates may board a boat on field 13", captain: "the pirate captain sends the plundered boat", plunder: "pirates plunder" };
    return prompts[view.phase] || view.phase.replace("_", " ");
  },
  path,
  describe,
};
