// The test-only dice race (a plugin game of the test suite): one track per seat.
import { svg, tip } from "../dom.js";

export default {
  draw(view, ctx) {
    const goal = Math.max(10, ...view.positions);
    return svg("svg", { viewBox: `0 0 600 ${30 + view.positions.length * 40}`, class: "board board-race" },
      view.positions.map((p, s) => svg("g", {},
        svg("rect", { x: 10, y: 20 + s * 40, width: 580, height: 24, rx: 6, fill: "#e8f1f5" }),
        svg("rect", { x: 10, y: 20 + s * 40, width: Math.max(6, (p / goal) * 580), height: 24, rx: 6, fill: ctx.people.colour(s) }),
        tip(`${ctx.people.name(s)}: ${p}`))));
  },
  money: (view, seat) => `${view.positions[seat]}`,
  path: (command) => [{ key: command.type, label: command.type === "Roll" ? "Roll the die" : command.type }],
  describe: (e, ctx) => (e.type === "Rolled" ? [ctx.people.who(e.seat), ` rolls ${e.value}.`] : e.type === "RaceWon" ? [ctx.people.who(e.seat), " wins the race."] : null),
  breakdown: () => [],
};
