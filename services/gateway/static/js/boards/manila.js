// Manila: the three routes with their boats, the harbour and shipyard fields, pirates, pilots and
// insurance, the black market (share prices) and the players' money and shares.
"use strict";
HM.Boards.manila = function (view) {
  const { el, seat, kv } = HM;
  const GOODS = ["jade", "silk", "nutmeg", "ginseng"];
  const LEVELS = [0, 5, 10, 20, 30];
  const seats = (list) => (list || []).map((s) => (s === null ? el("span", { class: "site empty" }) : seat(s)));
  const routes = el("div", { id: "manila-routes" }, view.boats.map((boat) => {
    const fields = [];
    for (let i = 0; i <= 14; i++) {
      const here = boat.berth === "" && boat.position === i;
      fields.push(el("div", { class: "field" + (i === 13 ? " pirates" : ""), title: i === 13 ? "pirates' field" : "field " + i },
        here ? el("div", { class: "boat good-" + boat.good }, boat.good.slice(0, 3)) : i));
    }
    return el("div", { class: "route", "data-good": boat.good }, el("b", { style: "width:70px" }, boat.good), fields,
      el("span", {}, " ", boat.berth ? `${boat.berth} ${"ABC"[boat.berth_index]}` : "at sea", " "), seats(boat.seats));
  }));
  const places = el("div", { class: "grid" },
    el("div", { class: "box", id: "manila-harbour" }, el("h4", {}, "Harbour"), ["A", "B", "C"].map((f, i) => el("div", {}, `${f}: `, view.harbour[i] === null ? "—" : seat(view.harbour[i])))),
    el("div", { class: "box", id: "manila-shipyard" }, el("h4", {}, "Shipyard"), ["A", "B", "C"].map((f, i) => el("div", {}, `${f}: `, view.shipyard[i] === null ? "—" : seat(view.shipyard[i])))),
    el("div", { class: "box" }, el("h4", {}, "Pirates"), seats(view.pirates)),
    el("div", { class: "box" }, el("h4", {}, "Pilots & insurance"), kv([["small pilot", view.small_pilot], ["big pilot", view.big_pilot], ["insurance", view.insurance]])),
    el("div", { class: "box" }, el("h4", {}, "Voyage"), kv([["voyage", view.voyage], ["phase", view.phase], ["harbour master", view.harbour_master], ["high bid", view.high_bid], ["dice rolls", view.rolls], ["plundered", view.plundered.join(", ")]])));
  const market = el("table", { id: "manila-market" }, el("tr", {}, el("th", {}, "Black market"), LEVELS.map((l) => el("th", {}, l)), el("th", {}, "shares left")),
    GOODS.map((g, i) => el("tr", {}, el("td", {}, el("span", { class: "ship good-" + g }, g)),
      LEVELS.map((l, j) => el("td", {}, view.market[i] === j ? "●" : "")), el("td", {}, view.supply[i]))));
  const players = el("table", { id: "manila-players" }, el("tr", {}, ["", "pesos", "shares", "mortgaged"].map((h) => el("th", {}, h))),
    view.players.map((p, s) => el("tr", {}, el("td", {}, seat(s), view.to_act.includes(s) ? " ▶" : ""), el("td", {}, p.cash),
      el("td", {}, p.shares ? p.shares.join(", ") : `${p.share_count} hidden`), el("td", {}, p.mortgaged ? p.mortgaged.join(", ") || "—" : `${p.mortgaged_count} hidden`))));
  return el("div", { class: "board-manila" }, el("h2", {}, "Manila — the routes"), view.boats.length ? routes : el("p", {}, "No boats loaded yet (auction)."),
    places, el("h2", {}, "Market"), market, el("h2", {}, "Merchants"), players);
};
