// The test-only dice race: one track per seat.
"use strict";
HM.Boards.race = function (view) {
  const max = Math.max(30, ...view.positions);
  return HM.el("div", {}, HM.el("h2", {}, "Dice race"), view.positions.map((p, s) =>
    HM.el("div", { class: "route" }, HM.seat(s), HM.el("div", { class: "bar", style: `width:${(p / max) * 80}%` }), " " + p)));
};
