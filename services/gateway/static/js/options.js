// Each game's options as its rules know them (domain/<game>/rules: check_known_options), drawn as form
// fields and read back; shared by the lobby's two forms (a game by links, a table for accounts).
import { el } from "./dom.js";
import { t } from "./i18n.js";

// Each option: its readable name, one line saying what it changes, and (for a choice) each choice's name.
// This is the one place option names are worded: the forms, the lobby's table rows and the help page read it.
export const OPTIONS = {
  manila: [
    { kind: "check", name: "variant_boarding", title: t("option.manila.boarding"),
      help: t("option.manila.boarding_help") },
    { kind: "select", name: "deal", title: t("option.manila.deal"),
      help: t("option.manila.deal_help"),
      choices: [["all_twenty", t("option.manila.deal_all")], ["three_of_each", t("option.manila.deal_three")]] },
  ],
  elcapitan: [
    { kind: "list", name: "expansions", title: t("option.elcapitan.expansions"),
      help: t("option.elcapitan.expansions_help"),
      choices: [["porto", "Porto"], ["lisboa", "Lisboa"], ["canarias", "Islas Canarias"]] },
  ],
  eic: [
    { kind: "check", name: "pledging", title: t("option.eic.pledging"),
      help: t("option.eic.pledging_help") },
  ],
};

/** The option `name` of `game` as data (undefined for one this client does not know). */
const optionOf = (game, name) => (OPTIONS[game] || []).find((o) => o.name === name);

/** A chosen value in words: a choice's name, or the raw value for one unknown. */
function valueWords(option, value) {
  const named = new Map(option.choices || []);
  return Array.isArray(value) ? value.map((v) => named.get(v) || v).join(", ") : named.get(value) || String(value);
}

/** `options` of a table or game in words ("Boarding variant · Shares dealt at the start: from all 20…"). */
export function describeOptions(game, options) {
  const parts = Object.entries(options || {}).filter(([, v]) => v !== false && !(Array.isArray(v) && !v.length)).map(([k, v]) => {
    const option = optionOf(game, k);
    if (!option) return v === true ? k : `${k}: ${Array.isArray(v) ? v.join(", ") : v}`;
    return v === true ? option.title : `${option.title}: ${valueWords(option, v)}`;
  });
  return parts.length ? parts.join(" · ") : t("option.standard");
}

/** The option fields of `game` in the fieldset `box`. */
export function drawOptionFields(box, game) {
  const options = OPTIONS[game] || [];
  box.hidden = options.length === 0;
  box.replaceChildren(el("legend", {}, t("form.options")), ...options.map((o) => {
    const help = el("small", { class: "option-help", id: `${box.id}-${o.name}-help` }, o.help);
    const described = { "aria-describedby": help.id };
    if (o.kind === "check") return el("div", { class: "option" }, el("label", { class: "row" }, el("input", { type: "checkbox", "data-option": o.name, ...described }), " ", o.title), help);
    if (o.kind === "select") return el("div", { class: "option" }, el("label", { class: "row" }, o.title, " ", el("select", { "data-option": o.name, ...described }, o.choices.map(([v, t]) => el("option", { value: v }, t)))), help);
    return el("div", { class: "option" }, el("div", { class: "row" }, o.title, ": ", o.choices.map(([v, t]) => el("label", { class: "inline" }, el("input", { type: "checkbox", "data-list": o.name, value: v, ...described }), " ", t))), help);
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
