// The rules help page: each game's summary (rules-summary.js) and its options with their one-line
// explanations (options.js, the one place options are worded). /static/help.html#manila opens one game.
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { OPTIONS } from "./options.js";
import { SUMMARIES } from "./rules-summary.js";

function optionList(game) {
  const options = OPTIONS[game] || [];
  if (!options.length) return el("p", {}, t("help.no_options"));
  return el("dl", { class: "help-options" }, options.map((o) => [
    el("dt", {}, o.title), el("dd", {}, o.help, o.choices ? el("ul", {}, o.choices.map(([, words]) => el("li", {}, words))) : ""),
  ]));
}

function gameSection(key, game) {
  return el("section", { class: "panel help-game", id: key, "aria-labelledby": `${key}-title` },
    el("h2", { id: `${key}-title` }, game.title), el("p", {}, el("b", {}, game.players), " · ", game.aim),
    el("dl", { class: "help-sections" }, game.sections.map(([printed, gloss, text]) => [
      el("dt", {}, printed, printed === gloss ? "" : el("span", { class: "gloss" }, ` (${gloss})`)), el("dd", {}, text),
    ])),
    el("h3", {}, t("form.options")), optionList(key));
}

document.getElementById("help-toc").replaceChildren(...Object.entries(SUMMARIES).map(([key, g]) => el("li", {}, el("a", { href: `#${key}` }, g.title))));
document.getElementById("help").replaceChildren(...Object.entries(SUMMARIES).map(([key, g]) => gameSection(key, g)));
if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
