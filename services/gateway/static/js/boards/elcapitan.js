// El Capitán: the cities with their warehouse sites (chains of one colour), fortresses, harbours and
// the ships; the players' money, warehouses, fortresses, loans and hands; the sailing-card piles.
import { el } from "../dom.js";
import { chip, commandSteps, eventWords, kv } from "./generic.js";

function tables(view, ctx) {
  const seat = (s) => chip(ctx.people, s);
  const site = (colour, i, city) => el("span", {
    class: "site " + (colour === -1 ? "empty" : colour === -2 ? "pirate" : "s" + colour) + ((city.closed || []).includes(i) ? " closed" : ""),
    title: colour === -1 ? `site ${i + 1}: free` : colour === -2 ? "pirate" : `site ${i + 1}: colour ${colour}`,
  });
  const ships = (name) => view.players.map((p, s) => (p.ship === name ? seat(s) : null)).filter(Boolean);
  const cities = el("div", { class: "grid", id: "ec-cities" }, view.cities.map((city) =>
    el("div", { class: "city", "data-city": city.name },
      el("h4", {}, city.name, " ", ships(city.name)),
      el("div", { class: "sites" }, city.sites.map((c, i) => site(c, i, city))),
      el("div", {}, "fortresses ", (city.fortresses || []).map((c) => el("span", { class: "site " + (c < 0 ? "empty" : "s" + c) })),
        " harbours ", (city.harbours || []).map((c) => el("span", { class: "site " + (c < 0 ? "empty" : "s" + c) }))),
      el("small", {}, `frontier ${city.frontier}`))));
  const players = el("table", { id: "ec-players" }, el("tr", {}, ["", "money", "warehouses", "fortresses", "loans", "bonus", "ship", "hand"].map((h) => el("th", {}, h))),
    view.players.map((p, s) => el("tr", { class: view.to_act.includes(s) ? "acting" : "" },
      el("td", {}, seat(s), view.current === s ? " ▶" : ""), el("td", {}, p.money), el("td", {}, p.warehouses + (p.neutral ? ` (+${p.neutral})` : "")),
      el("td", {}, p.fortresses), el("td", {}, (p.loans || []).filter((l) => !l.settled).map((l) => l.amount).join(", ") || "—"),
      el("td", {}, p.bonus), el("td", {}, p.ship || "—"), el("td", {}, (p.hand || []).join(", ") || "—"))));
  const decks = el("div", { class: "grid" },
    el("div", { class: "box" }, el("h4", {}, "Destinations"), kv([["display", view.destinations.display.join(", ")], ["draw pile", view.destinations.draw_count], ["discards", view.destinations.discard.length]])),
    el("div", { class: "box" }, el("h4", {}, "Interconnections"), kv([["display", view.interconnections.display.join(", ")], ["draw pile", view.interconnections.draw_count], ["discards", view.interconnections.discard.length]])),
    el("div", { class: "box" }, el("h4", {}, "Turn"), kv([["phase", view.phase], ["round", view.round], ["stage", view.stage], ["pirate", view.pirate || "—"], ["start player", view.start_player]])));
  return el("div", { class: "board-elcapitan" }, el("h2", {}, "El Capitán"), cities, el("h2", {}, "Players"), players, el("h2", {}, "Sailing cards"), decks);
};

export default {
  draw: (view, ctx) => el("div", { class: "tables" }, tables(view, ctx)),
  path: commandSteps,
  describe: eventWords,
};
