// What every board falls back on until it says better: a command in words from its fields, an
// event as its actor's name and its type spelled out, small tables and chips.
import { el } from "../dom.js";

export function words(type) {
  return type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

export function commandSteps(command, ctx) {
  const fields = Object.entries(command).filter(([k]) => k !== "type");
  const text = fields.map(([k, v]) => `${words(k)} ${k === "seat" && ctx ? ctx.people.name(v) : Array.isArray(v) ? v.join(", ") || "none" : v}`);
  const label = words(command.type);
  return [{ key: JSON.stringify(command), label: (label.charAt(0).toUpperCase() + label.slice(1)) + (text.length ? ": " + text.join(", ") : "") }];
}

export function eventWords(e, ctx) {
  const actor = ["seat", "player", "actor"].find((k) => typeof e[k] === "number");
  return [actor ? [ctx.people.who(e[actor]), " "] : "", words(e.type), "."];
}

export function chip(people, seat) {
  return el("i", { class: "chip p" + seat, title: people.name(seat) });
}

export function kv(pairs) {
  return el("div", { class: "kv" }, pairs.map(([k, v]) => [el("span", {}, k), el("b", {}, v === null || v === undefined ? "—" : String(v))]));
}
