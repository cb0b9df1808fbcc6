// Each game's options as its rules know them (domain/<game>/rules: check_known_options), drawn as form
// fields and read back; shared by the lobby's two forms (a game by links, a table for accounts).
import { el } from "./dom.js";

export const OPTIONS = {
  manila: [
    { kind: "check", name: "variant_boarding", label: "Boarding variant (a pirate may displace a crew member)" },
    { kind: "select", name: "deal", label: "Shares dealt", choices: [["all_twenty", "from all 20 shares (2015 rules)"], ["three_of_each", "from three of each (2005 rules)"]] },
  ],
  elcapitan: [
    { kind: "list", name: "expansions", label: "Expansion cities", choices: [["porto", "Porto"], ["lisboa", "Lisboa"], ["canarias", "Islas Canarias"]] },
  ],
  eic: [{ kind: "check", name: "pledging", label: "Pledging (shares may be pledged for money)" }],
};

/** The option fields of `game` in the fieldset `box`. */
export function drawOptionFields(box, game) {
  const options = OPTIONS[game] || [];
  box.hidden = options.length === 0;
  box.replaceChildren(el("legend", {}, "Options"), ...options.map((o) => {
    if (o.kind === "check") return el("label", { class: "row" }, el("input", { type: "checkbox", "data-option": o.name }), " ", o.label);
    if (o.kind === "select") return el("label", { class: "row" }, o.label, " ", el("select", { "data-option": o.name }, o.choices.map(([v, t]) => el("option", { value: v }, t))));
    return el("div", { class: "row" }, o.label, ": ", o.choices.map(([v, t]) => el("label", { class: "inline" }, el("input", { type: "checkbox", "data-list": o.name, value: v }), " ", t)));
  }));
}

/** The options chosen in the fieldset `box`. */
export function readOptionFields(box) {
  const options = {};
  for (const node of box.querySelectorAll("[data-option]")) {
    if (node.type === "checkbox") { if (node.checked) options[node.dataset.option] = true; } else options[node.dataset.option] = node.value;
  }
  for (const node of box.querySelectorAll("[data-list]")) {
    if (node.checked) (options[node.dataset.list] = options[node.dataset.list] || []).push(node.value);
  }
  return options;
}
