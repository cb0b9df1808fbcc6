// The end screen's rating changes (issue 44): each account's place at the table ("2nd= of 4" when shared),
// its number before and after and the change (+62 / −12), with OpenSkill's μ and σ behind a click. The fold
// worker rates a game just after its last move, so a game that has only just ended is asked again a few times.
import { el } from "../dom.js";
import { lang, t } from "../i18n.js";
import { api } from "../net.js";

const TRIES = 30;
const WAIT_MS = 500;

/** 0 -> "1st", 1 -> "2nd", 10 -> "11th", 21 -> "22nd" (in German "1.", "2."). */
export function nth(place) {
  const n = place + 1;
  if (lang === "de") return `${n}.`;
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th"}`;
}

/** "2nd= of 4": the place at the whole table (bots and guests counted); "=" when another seat shares it. */
export function placeText(row) {
  return t(row.tied ? "ratings.place_tied" : "ratings.place", { place: nth(row.place), players: row.players });
}

/** "+62", "−12" (a real minus sign), "±0". */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0";
}

const fixed = (x) => Number(x).toFixed(2);

/** Why a change is smaller or marked: left the game, a repeated pairing, provisional. */
export function notes(row) {
  const out = [];
  if (row.abandoned) out.push(t("ratings.abandoned"));
  if (row.weight < 1) out.push(t("ratings.repeat", { percent: Math.round(row.weight * 100) }));
  if (row.provisional) out.push(t("ratings.provisional"));
  return out;
}

/** OpenSkill's numbers behind one click. */
export function details(rows) {
  return el("details", { class: "openskill" }, el("summary", {}, t("ratings.details")),
    el("table", { class: "ratings" }, el("tr", {}, [t("ratings.player"), t("ratings.mu_before"), t("ratings.sigma_before"), t("ratings.mu_after"), t("ratings.sigma_after"), t("ratings.weight")].map((h) => el("th", {}, h))),
      rows.map((r) => el("tr", {}, el("td", {}, r.account), el("td", {}, fixed(r.mu_before)), el("td", {}, fixed(r.sigma_before)),
        el("td", {}, fixed(r.mu_after)), el("td", {}, fixed(r.sigma_after)), el("td", {}, fixed(r.weight))))),
    el("p", { class: "hint" }, t("ratings.formula")));
}

function table(rows) {
  return el("table", { class: "ratings", id: "rating-changes" },
    el("tr", {}, [t("ratings.player"), t("ratings.place_head"), t("ratings.change"), t("ratings.rating")].map((h) => el("th", {}, h))),
    rows.map((r) => el("tr", { "data-account": r.account },
      el("td", {}, el("a", { href: `/players/${encodeURIComponent(r.account)}` }, r.account)),
      el("td", { class: "place" }, placeText(r)),
      el("td", { class: r.change >= 0 ? "change up" : "change down" }, signed(r.change)),
      el("td", {}, String(r.after), ...notes(r).map((n) => el("span", { class: "tag" }, n))))));
}

let shown = false;

/** Fill ``node`` with the game's rating changes once they exist (a game nobody's rating rides on: nothing). */
export async function showRatings(gameId, node) {
  if (shown) return;
  shown = true;
  for (let i = 0; i < TRIES; i++) {
    const { status, body } = await api(`/api/games/${encodeURIComponent(gameId)}/ratings`);
    if (status !== 200) return;
    if (body.status === "rated") {
      return node.replaceChildren(el("div", { class: "panel final-ratings" }, el("h2", {}, t("ratings.title")), table(body.changes), details(body.changes)));
    }
    if (body.status === "unrated") {
      if (body.reason !== "not a rated game") node.replaceChildren(el("p", { class: "panel hint", id: "rating-none" }, t("ratings.not_rated", { reason: body.reason })));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  }
}
