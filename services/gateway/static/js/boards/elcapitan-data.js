// El Capitán's printed numbers as the rules use them (domain/elcapitan/data.py, the one source; the
// values are elcapitan.md's proposed set where the print is not known). Kept in step by hand.
import { t } from "../i18n.js";

const TRACK = {
  A: [0, 4, 8, 12, 16, 20, 24, 28, 32, 28, 24, 20, 16],
  B: [0, 3, 6, 9, 12, 15, 18, 21, 24, 21, 18, 15, 12],
  C: [0, 2, 4, 6, 8, 10, 12, 14, 16, 14, 12, 10, 8],
  P: [0, 5, 10, 15, 20, 25, 30, 35, 40, 35, 30, 25, 20],
};
const CLASS = { A: [[4, 5], [8, 10]], B: [[3, 4], [6, 8]], C: [[2, 3], [4, 6]] };

function city(name, title, row, col, cls, extra) {
  const [harbours, fortresses] = CLASS[cls] || [[], []];
  return { name, title, row, col, harbours, fortresses, track: TRACK[cls], dark: [6, 8, 10], triangle: 5, ...extra };
}

export const CITIES = Object.fromEntries([
  city("marseille", "Marseille", 1, 1, "A"), city("venezia", "Venezia", 1, 2, "B"), city("constantinople", "Constantinople", 1, 3, "C"),
  city("valencia", "Valencia", 2, 1, "C"), city("napoli", "Napoli", 2, 2, "A"), city("athina", "Athina", 2, 3, "B"),
  city("tanger", "Tanger", 3, 1, "B"), city("tunis", "Tunis", 3, 2, "C"), city("alexandria", "Alexandria", 3, 3, "A"),
  city("porto", "Porto", 1, 0, "P", { harbours: [4, 5, 6], fortresses: [12] }),
  city("lisboa", "Lisboa", 2, 0, "C", { harbours: [0, 1], fortresses: [4, 6], dark: [7, 10], triangle: null }),
  city("canarias", "Islas Canarias", 3, 0, "B", { harbours: [3, 4], fortresses: [6, 8] }),
].map((c) => [c.name, c]));

const MAIN = ["marseille", "venezia", "constantinople", "valencia", "napoli", "athina", "tanger", "tunis", "alexandria"];
const DESTINATIONS = [["marseille", 1], ["marseille", 3], ["venezia", 2], ["venezia", 3], ["constantinople", 1], ["constantinople", 2],
  ["valencia", 2], ["valencia", 3], ["napoli", 1], ["napoli", 2], ["athina", 1], ["athina", 3], ["tanger", 1], ["tanger", 2],
  ["tunis", 1], ["tunis", 3], ["alexandria", 2], ["alexandria", 3]];

/** Every sailing card by id: a destination (city, seals, cost) or an interconnection (two cities, cost). */
export const CARDS = {};
DESTINATIONS.forEach(([c, seals], i) => (CARDS[`D${String(i + 1).padStart(2, "0")}`] = { kind: "destination", city: c, seals, cost: 2 + seals }));
let n = 0;
MAIN.forEach((a, i) => MAIN.slice(i + 1).forEach((b) => {
  n += 1;
  const cost = Math.abs(CITIES[a].row - CITIES[b].row) + Math.abs(CITIES[a].col - CITIES[b].col);
  CARDS[`I${String(n).padStart(2, "0")}`] = { kind: "link", cities: [a, b], cost };
}));

export const title = (name) => (CITIES[name] ? CITIES[name].title : name === "bank" ? t("ec.the_bank") : name);

export function cardText(id) {
  const c = CARDS[id];
  if (!c) return id;
  if (c.kind === "destination") return `${title(c.city)} · ${t(c.seals === 1 ? "ec.seal" : "ec.seals", { n: c.seals })}`;
  return `${title(c.cities[0])} ↔ ${title(c.cities[1])}`;
}
