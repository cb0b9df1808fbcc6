// The players' panel (names, colours, public money, what each holds in the open, who is to act) and the
// final table.
import { botWords } from "../bots.js";
import { el } from "../dom.js";
import { t } from "../i18n.js";

export function playersPanel(view, ctx, board) {
  const { people, toAct, viewer, bots, outcome } = ctx;
  const rows = people.names.map((_, seat) => {
    const money = board.money ? board.money(view, seat) : "";
    const tags = [];
    if (seat === viewer) tags.push(el("span", { class: "tag you" }, t("players.you")));
    if (bots[String(seat)]) tags.push(el("span", { class: "tag bot" }, botWords(bots[String(seat)])));
    if (outcome && outcome.winners.includes(seat)) tags.push(el("span", { class: "tag win" }, t("players.winner")));
    return el("li", { class: "player" + (toAct.includes(seat) && !outcome ? " acting" : ""), "data-seat": seat },
      el("span", { class: "turn", title: t("players.to_act") }, toAct.includes(seat) && !outcome ? "▶" : ""),
      people.who(seat), " ", tags, el("span", { class: "money" }, money), holdings(view, seat, ctx, board));
  });
  return el("ul", { class: "players", id: "player-list" }, rows);
}

/** What the seat holds in the open, by the rulebook (El Capitán's hand and loans, East India Companies'
 * shares): a line of its own under the name, shown to every viewer, spectators too (issue 44.4). */
function holdings(view, seat, ctx, board) {
  const parts = board.holdings ? board.holdings(view, seat, ctx) : [];
  if (!parts.length) return "";
  return el("ul", { class: "holdings", "data-holdings": seat, "aria-label": t("players.holds", { name: ctx.people.name(seat) }) },
    parts.map(([label, items]) => el("li", {}, el("span", { class: "holding-label" }, `${label}: `), items.length ? items.join(", ") : t("players.none"))));
}

export function finalTable(view, outcome, ctx, board) {
  const { people } = ctx;
  const head = ["", t("players.player"), board.scoreName || t("players.score")];
  const lines = outcome.ranking.map((seat, place) => {
    const parts = board.breakdown ? board.breakdown(view, outcome, seat, ctx) : [];
    return el("tr", { "data-seat": seat },
      el("td", { class: "place" }, `${placeOf(outcome, place, ctx.game)}.`),
      el("td", {}, people.who(seat), outcome.winners.includes(seat) ? el("span", { class: "tag win" }, t("players.winner")) : ""),
      el("td", { class: "score" }, el("b", {}, outcome.scores[seat]),
        parts.length ? el("div", { class: "parts" }, parts.map(([label, value]) => el("span", {}, `${label}: `, el("b", {}, value)))) : ""));
  });
  return el("div", { class: "final", id: "outcome" },
    el("h2", {}, t("players.final")),
    el("table", { id: "final-table" }, el("tr", {}, head.map((h) => el("th", {}, h))), lines),
    outcome.tie_break ? el("p", { class: "tie" }, tieBreak(outcome.tie_break, people)) : "");
}

/** Games whose rulebook leaves a tie standing: equal scores share the place (domain/tournament/results.py's
 * TIES_SHARED, as the ratings place them); elsewhere only an outcome that names no tie-break shares. */
const TIES_SHARED = new Set(["manila", "elcapitan"]);

/** The place (1-based) of the `index`-th seat of the ranking: a tie shows the shared place on every row of
 * it ("2." and "2."), never a blank (issue 44). */
export function placeOf(outcome, index, game) {
  if (!TIES_SHARED.has(game) && outcome.tie_break) return index + 1;
  const score = outcome.scores[outcome.ranking[index]];
  let first = index;
  while (first > 0 && outcome.scores[outcome.ranking[first - 1]] === score) first--;
  return first + 1;
}

// The rules' tie-break notes as the engines write them (domain/*/rules), in the page's language.
const TIE_NOTES = {
  "the rulebook names no tie-break: tied players share the place (project decision)": t("tie.manila"),
  "equal money shares the place; listed in seat order": t("tie.elcapitan"),
  "ended by a vote of the players": t("tie.vote"),
};
const TIE_REASONS = { "company value": t("tie.company_value"), treasury: t("tie.treasury"), initiative: t("tie.initiative") };

/** The rules' tie-break note names seats ("seat 0 before seat 2 on treasury"): say their names. */
function tieBreak(text, people) {
  if (Object.hasOwn(TIE_NOTES, text)) return TIE_NOTES[text];
  return text.split("; ").map((note) => {
    const before = /^seat (\d+) before seat (\d+) on (.+)$/.exec(note);
    if (!before) return note.replace(/\bseat (\d+)/g, (_, n) => people.name(Number(n)));
    return t("tie.before", { a: people.name(Number(before[1])), b: people.name(Number(before[2])), reason: TIE_REASONS[before[3]] || before[3] });
  }).join("; ");
}
