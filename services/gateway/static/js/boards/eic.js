// East India Companies: the Far East and European markets, the sea zones with their ships, the
// players' fleets and warehouses, and the stock exchange.
import { el } from "../dom.js";
import { chip, commandSteps, eventWords, kv } from "./generic.js";

function tables(view, ctx) {
  const seat = (s) => chip(ctx.people, s);
  const GOODS = ["tea", "spices", "coffee", "silk"];
  const ZONES = ["China", "Southeast Asia", "India"];
  const goodsRow = (counts) => GOODS.map((g, i) => el("td", {}, counts[i]));
  const markets = el("table", { id: "eic-markets" }, el("tr", {}, el("th", {}, "Market"), GOODS.map((g) => el("th", {}, g)), el("th", {}, "card")),
    el("tr", {}, el("td", {}, "Far East goods"), goodsRow(view.far_east), el("td", {}, view.fe_card || "hidden")),
    el("tr", {}, el("td", {}, "Far East dice"), goodsRow(view.fe_dice), el("td", {})),
    el("tr", {}, el("td", {}, "Europe goods"), goodsRow(view.europe), el("td", {}, view.eu_card || "hidden")),
    el("tr", {}, el("td", {}, "Europe dice"), goodsRow(view.eu_dice), el("td", {})),
    el("tr", {}, el("td", {}, "Supply"), goodsRow(view.supply), el("td", {})));
  const ship = (s, owner) => el("span", { class: "ship s" + owner + (s.face_down ? " down" : ""), title: s.face_down ? "face down" : s.kind }, s.kind || "?");
  const zones = el("div", { class: "grid", id: "eic-zones" }, view.zone_owners.map((owners, z) =>
    el("div", { class: "box" }, el("h4", {}, ZONES[z] || "zone " + z), owners.length ? owners.map((o) => el("span", { class: "ship s" + o }, "⛵")) : "empty",
      el("div", {}, el("small", {}, (view.left[z] || []).length ? "left: " + view.left[z].join(", ") : "")))));
  const exchange = el("table", { id: "eic-exchange" }, el("tr", {}, ["Company", "share value", "on exchange", "in stock"].map((h) => el("th", {}, h))),
    view.share_values.map((v, c) => el("tr", {}, el("td", {}, seat(c), " company " + c), el("td", {}, v), el("td", {}, view.exchange[c]), el("td", {}, view.stock[c]))));
  const players = el("table", { id: "eic-players" }, el("tr", {}, ["", "treasury", "income", "ships", "warehouse", "posts", "envoys", "shares"].map((h) => el("th", {}, h))),
    view.players.map((p, s) => el("tr", {}, el("td", {}, seat(s), view.actor === s ? " ▶" : ""), el("td", {}, p.treasury), el("td", {}, p.income),
      el("td", {}, p.ships.map((x) => ship(x, s))), el("td", {}, GOODS.map((g, i) => (p.warehouse[i] ? `${p.warehouse[i]} ${g}` : "")).filter(Boolean).join(", ") || "—"),
      el("td", {}, p.posts.join(", ") || "—"), el("td", {}, p.envoys.join(", ")), el("td", {}, p.shares.join("/")))));
  const turn = kv([["epoch", view.epoch], ["phase", view.phase], ["step", view.step], ["initiative", view.initiative.join(" → ")], ["queue", view.queue.join(", ")]]);
  return el("div", { class: "board-eic" }, el("h2", {}, "East India Companies — markets"), markets, el("h2", {}, "Sea zones"), zones,
    el("h2", {}, "Stock exchange"), exchange, el("h2", {}, "Companies"), players, el("div", { class: "box" }, el("h4", {}, "Turn"), turn));
};

export default {
  draw: (view, ctx) => el("div", { class: "tables" }, tables(view, ctx)),
  path: commandSteps,
  describe: eventWords,
};
