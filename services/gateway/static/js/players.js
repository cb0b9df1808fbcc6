// A game's leaderboard (/leaderboards/<game>) and an account's page (/players/<name>): ratings as
// OpenSkill's ordinal (mu - 3 sigma), each rated game with the place taken and the rating it left.
import { el } from "./dom.js";
import { api } from "./net.js";

const $ = (id) => document.getElementById(id);
const [, kind, key] = location.pathname.split("/").map(decodeURIComponent);
const fixed = (x) => Number(x).toFixed(2);
const ordinal = (n) => `${n + 1}${["st", "nd", "rd"][n] || "th"}`;

async function leaderboard() {
  const { status, body } = await api(`/api/leaderboards/${encodeURIComponent(key)}`);
  if (status !== 200) return $("page").replaceChildren(el("p", {}, body ? body.message : "unavailable"));
  document.title = `${body.title} leaderboard — Harbormaster`;
  $("heading").textContent = `${body.title}: leaderboard`;
  $("page").replaceChildren(el("h1", {}, `${body.title} leaderboard`),
    body.rows.length ? el("table", { class: "ratings", id: "leaderboard" },
      el("tr", {}, ["#", "player", "rating", "μ", "σ"].map((h) => el("th", {}, h))),
      body.rows.map((r) => el("tr", { "data-name": r.name }, el("td", {}, r.rank), el("td", {}, el("a", { href: `/players/${encodeURIComponent(r.name)}` }, r.name)),
        el("td", {}, fixed(r.ordinal)), el("td", {}, fixed(r.mu)), el("td", {}, fixed(r.sigma)))))
      : el("p", {}, "No rated game of this kind has ended yet."));
}

async function account() {
  const { status, body } = await api(`/api/accounts/${encodeURIComponent(key)}`);
  if (status !== 200) return $("page").replaceChildren(el("p", {}, body ? body.message : "unavailable"));
  document.title = `${body.name} — Harbormaster`;
  $("heading").textContent = body.name;
  $("page").replaceChildren(el("h1", {}, body.name),
    el("h2", {}, "Ratings"),
    ...(body.ratings.length ? body.ratings.map((g) => el("section", { class: "rating", "data-game": g.game },
      el("h3", {}, el("a", { href: `/leaderboards/${g.game}` }, g.game), ` — ${fixed(g.ordinal)} (μ ${fixed(g.rating.mu)}, σ ${fixed(g.rating.sigma)})`),
      el("table", { class: "ratings" }, el("tr", {}, ["game", "place", "before", "after"].map((h) => el("th", {}, h))),
        g.history.map((h) => el("tr", {}, el("td", {}, el("a", { href: `/games/${h.game_id}` }, h.game_id)), el("td", {}, `${ordinal(h.place)} of ${h.players}`),
          el("td", {}, fixed(h.before.mu - 3 * h.before.sigma)), el("td", {}, fixed(h.after.mu - 3 * h.after.sigma)))))))
      : [el("p", {}, "Not rated yet.")]),
    el("h2", {}, "Games"),
    body.games.length ? el("ul", {}, body.games.map((g) => el("li", {}, el("a", { href: `/games/${g.game_id}` }, g.title), ` — ${g.names.join(", ")} — ${g.status}`)))
      : el("p", {}, "No games yet."));
}

(kind === "leaderboards" ? leaderboard : account)();
