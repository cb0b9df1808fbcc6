// A game's leaderboard (/leaderboards/<game>) and an account's page (/players/<name>): ratings as
// OpenSkill's ordinal (mu - 3 sigma), each rated game with the place taken and the rating it left.
import { el } from "./dom.js";
import { api } from "./net.js";
import { whoAmI } from "./account.js";

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
      : el("p", {}, "No games yet."),
    await security(body.name));
}

/** On one's own page: change the password (every other session is signed out) or sign out everywhere. */
async function security(name) {
  const me = await whoAmI();
  if (!me || me.toLowerCase() !== name.toLowerCase()) return null;
  const message = el("div", { id: "security-message", role: "status" });
  const say = (ok, text) => message.replaceChildren(el("div", { class: ok ? "notice ok" : "notice error" }, text));
  const form = el("form", { id: "password-form" },
    el("label", { class: "row" }, "Current password ", el("input", { name: "password", type: "password", autocomplete: "current-password", required: true })),
    el("label", { class: "row" }, "New password ", el("input", { name: "new_password", type: "password", autocomplete: "new-password", required: true, minlength: 8 })),
    el("button", { class: "primary", type: "submit", id: "change-password" }, "Change password"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = { password: form.elements.password.value, new_password: form.elements.new_password.value };
    const { status, body } = await api("/api/me/password", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(fields) });
    form.reset();
    say(status === 204, status === 204 ? "Password changed. Every other session of yours is signed out." : body ? body.message : `refused (${status})`);
  });
  const everywhere = el("button", { type: "button", id: "sign-out-everywhere", onclick: async () => {
    const { status, body } = await api("/api/me/sessions", { method: "DELETE" });
    if (status === 204) location.assign("/");
    else say(false, body ? body.message : `refused (${status})`);
  } }, "Sign out everywhere");
  return el("section", { id: "security" }, el("h2", {}, "Your account"), form,
    el("p", {}, everywhere, " ends every session of this account, on every device, this one too."), message);
}

(kind === "leaderboards" ? leaderboard : account)();
