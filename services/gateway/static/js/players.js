// A game's leaderboard (/leaderboards/<game>) and an account's page (/players/<name>): one number per game
// (1500 + 40 (mu - 25), provisional for the first 10 rated games), each rated game with the place taken at
// the whole table ("2nd= of 4" when shared) and the change; OpenSkill's mu and sigma behind a click.
import { el } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api } from "./net.js";
import { whoAmI } from "./account.js";
import { details, notes, placeText, signed } from "./shell/ratings.js";

const $ = (id) => document.getElementById(id);
const [, kind, key] = location.pathname.split("/").map(decodeURIComponent);
const fixed = (x) => Number(x).toFixed(2);
const provisional = (games, needed, short) => el("span", { class: "tag provisional", title: t("board.provisional_until", { n: needed }) }, short ? t("ratings.provisional") : t("board.provisional_of", { games, n: needed }));

async function leaderboard() {
  const { status, body } = await api(`/api/leaderboards/${encodeURIComponent(key)}`);
  if (status !== 200) return $("page").replaceChildren(el("p", {}, body ? body.message : t("conn.unavailable")));
  document.title = t("board.tab", { game: body.title });
  $("heading").textContent = t("board.heading", { game: body.title });
  $("page").replaceChildren(el("h1", {}, t("board.title", { game: body.title })),
    ...(body.rows.length ? [el("table", { class: "ratings", id: "leaderboard" },
      el("tr", {}, ["#", t("ratings.player"), t("ratings.rating"), t("board.games")].map((h) => el("th", {}, h))),
      body.rows.map((r) => el("tr", { "data-name": r.name }, el("td", {}, r.rank), el("td", {}, el("a", { href: `/players/${encodeURIComponent(r.name)}` }, r.name)),
        el("td", { class: "shown-rating" }, String(r.rating), r.provisional ? provisional(r.games, body.provisional_games, true) : ""), el("td", {}, r.games)))),
      el("p", { class: "hint" }, t("board.order", { n: body.provisional_games })),
      el("details", { class: "openskill" }, el("summary", {}, t("ratings.details")),
        el("table", { class: "ratings" }, el("tr", {}, [t("ratings.player"), "μ", "σ", "μ − 3σ"].map((h) => el("th", {}, h))),
          body.rows.map((r) => el("tr", {}, el("td", {}, r.name), el("td", {}, fixed(r.mu)), el("td", {}, fixed(r.sigma)), el("td", {}, fixed(r.ordinal))))),
        el("p", { class: "hint" }, t("board.formula")))]
      : [el("p", {}, t("board.none"))]));
}

/** One game kind's rating on an account's page: the number, its history, the OpenSkill numbers behind a click. */
function ratingSection(g) {
  return el("section", { class: "rating", "data-game": g.game },
    el("h3", {}, el("a", { href: `/leaderboards/${g.game}` }, g.game), " ", el("span", { class: "shown-rating" }, String(g.shown)),
      g.provisional ? provisional(g.games, 10) : ""),
    el("table", { class: "ratings history" }, el("tr", {}, [t("board.game"), t("ratings.place_head"), t("ratings.change"), t("ratings.rating")].map((h) => el("th", {}, h))),
      g.history.map((h) => el("tr", { "data-game-id": h.game_id }, el("td", {}, el("a", { href: `/games/${h.game_id}` }, h.game_id)),
        el("td", { class: "place" }, placeText(h)),
        el("td", { class: h.change >= 0 ? "change up" : "change down" }, signed(h.change)),
        el("td", {}, String(h.after), ...notes(h).filter((n) => n !== t("ratings.provisional")).map((n) => el("span", { class: "tag" }, n)))))),
    el("details", { class: "openskill" }, el("summary", {}, t("ratings.details")),
      el("p", {}, `μ ${fixed(g.rating.mu)}, σ ${fixed(g.rating.sigma)}, μ − 3σ ${fixed(g.ordinal)}`),
      details(g.history).querySelector("table"),
      el("p", { class: "hint" }, t("board.formula_history"))));
}

async function account() {
  const { status, body } = await api(`/api/accounts/${encodeURIComponent(key)}`);
  if (status !== 200) return $("page").replaceChildren(el("p", {}, body ? body.message : t("conn.unavailable")));
  document.title = `${body.name} — Harbormaster`;
  $("heading").textContent = body.name;
  $("page").replaceChildren(el("h1", {}, body.name),
    el("h2", {}, t("account.ratings")),
    ...(body.ratings.length ? body.ratings.map(ratingSection) : [el("p", {}, t("account.not_rated"))]),
    el("h2", {}, t("account.games")),
    body.games.length ? el("ul", {}, body.games.map((g) => el("li", {}, el("a", { href: `/games/${g.game_id}` }, g.title), ` — ${g.names.join(", ")} — ${g.status}`)))
      : el("p", {}, t("account.no_games")),
    (await security(body.name)) || "");
}

/** On one's own page: change the password (every other session is signed out) or sign out everywhere. */
async function security(name) {
  const me = await whoAmI();
  if (!me || me.toLowerCase() !== name.toLowerCase()) return null;
  const message = el("div", { id: "security-message", role: "status" });
  const say = (ok, text) => message.replaceChildren(el("div", { class: ok ? "notice ok" : "notice error" }, text));
  const form = el("form", { id: "password-form" },
    el("label", { class: "row" }, t("account.current_password"), " ", el("input", { name: "password", type: "password", autocomplete: "current-password", required: true })),
    el("label", { class: "row" }, t("account.new_password"), " ", el("input", { name: "new_password", type: "password", autocomplete: "new-password", required: true, minlength: 8 })),
    el("button", { class: "primary", type: "submit", id: "change-password" }, t("account.change_password")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = { password: form.elements.password.value, new_password: form.elements.new_password.value };
    const { status, body } = await api("/api/me/password", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(fields) });
    form.reset();
    say(status === 204, status === 204 ? t("account.password_changed") : body ? body.message : t("error.refused", { status }));
  });
  const everywhere = el("button", { type: "button", id: "sign-out-everywhere", onclick: async () => {
    const { status, body } = await api("/api/me/sessions", { method: "DELETE" });
    if (status === 204) location.assign("/");
    else say(false, body ? body.message : t("error.refused", { status }));
  } }, t("account.sign_out_everywhere"));
  return el("section", { id: "security" }, el("h2", {}, t("account.yours")), form,
    el("p", {}, tNodes("account.everywhere_explain", { button: everywhere })), message);
}

(kind === "leaderboards" ? leaderboard : account)();
