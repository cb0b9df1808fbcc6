// The lobby: live and finished games (refreshed), and a form to create a game with its options,
// players' names and bots; after creation, a link per seat (the seat's token is in the link only).
import { BOTS, botWords } from "./bots.js";
import { el, People, replaceIfChanged } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { drawOptionFields, readOptionFields } from "./options.js";

const $ = (id) => document.getElementById(id);
let catalog = [];
let finishedOffset = 0;

function gameRow(game) {
  const people = new People(game.names || []);
  return el("a", { class: "game-row", href: "/games/" + game.game_id, "data-game": game.game_id },
    el("b", {}, game.title),
    el("span", { class: "names" }, (game.names || []).map((_, s) => [s ? " · " : "", people.who(s)])),
    el("span", { class: "badge " + game.status }, game.status === "live" ? t("lobby.live_badge", { seq: game.seq }) : t("game.finished")));
}

async function refresh() {
  const live = await api("/api/games?status=live&limit=50");
  const finished = await api(`/api/games?status=finished&limit=${20 + finishedOffset}`);
  if (live.status !== 200) return ($("conn").textContent = t("lobby.unavailable"));
  replaceIfChanged($("live"), live.body.games.length ? live.body.games.map(gameRow) : [el("p", {}, t("lobby.no_live"))]);
  replaceIfChanged($("finished"), finished.body.games.map(gameRow));
  $("more-finished").hidden = finished.body.next_offset === null;
  $("conn").textContent = t("lobby.live_count", { n: live.body.games.length });
}

function selected() {
  return catalog.find((g) => g.key === $("game-kind").value);
}

function drawOptions() {
  drawOptionFields($("options"), $("game-kind").value);
}

function drawSeats() {
  const game = selected();
  const count = $("seat-count");
  const keep = Number(count.value) || Math.min(game.max_seats, Math.max(game.min_seats, 4));
  count.replaceChildren(...Array.from({ length: game.max_seats - game.min_seats + 1 }, (_, i) => el("option", { value: game.min_seats + i }, game.min_seats + i)));
  count.value = String(Math.min(game.max_seats, Math.max(game.min_seats, keep)));
  drawSeatRows();
}

function drawSeatRows() {
  const box = $("seats");
  const old = [...box.querySelectorAll(".seat-row")].map((r) => [r.querySelector("input").value, r.querySelector("select").value]);
  const people = new People([]);
  box.replaceChildren(el("legend", {}, t("form.seats")), ...Array.from({ length: Number($("seat-count").value) }, (_, s) => {
    const [name, kind] = old[s] || ["", s === 0 ? "human" : "greedy"];
    return el("div", { class: "seat-row" }, el("i", { class: "chip p" + s, title: people.colour(s) }),
      el("input", { name: "name", value: name, placeholder: s === 0 ? t("links.your_name") : t("people.player", { n: s + 1 }), maxlength: 24, "aria-label": t("links.seat_name", { n: s + 1 }) }),
      el("select", { name: "kind", "aria-label": t("links.seat_kind", { n: s + 1 }) }, [["human", t("links.person")], ...BOTS].map(([v, t]) => el("option", { value: v, selected: v === kind }, t))));
  }));
}

function readOptions() {
  return readOptionFields($("options"));
}

async function create(event) {
  event.preventDefault();
  const rows = [...$("seats").querySelectorAll(".seat-row")];
  const names = rows.map((r) => r.querySelector("input").value.trim());
  const bots = {};
  rows.forEach((r, s) => { if (r.querySelector("select").value !== "human") bots[String(s)] = r.querySelector("select").value; });
  const headers = { "Content-Type": "application/json" };
  const admin = event.target.admin.value;
  if (admin) headers.Authorization = "Bearer " + admin;
  const body = { game: $("game-kind").value, seats: rows.length, options: readOptions(), bots, names };
  const { status, body: made } = await api("/api/games", { method: "POST", headers, body: JSON.stringify(body) });
  if (status !== 201) return $("created").replaceChildren(el("div", { class: "notice error" }, made ? made.message : t("error.refused", { status })));
  const people = new People(names.map((n, s) => n || (bots[String(s)] ? t("links.bot_seat", { kind: bots[String(s)], n: s + 1 }) : t("people.player", { n: s + 1 }))));
  const watch = `${location.origin}/games/${made.game_id}`;
  $("created").replaceChildren(el("div", { class: "notice ok" }, t("links.ready")),
    el("ul", { class: "links" }, made.seats.map((s) => el("li", {}, people.who(s.seat), " ",
      s.token ? [el("a", { href: `/games/${made.game_id}#token=${s.token}`, class: "seat-link" }, t("links.play")), " ",
        el("button", { type: "button", class: "copy", onclick: (e) => copy(`${watch}#token=${s.token}`, e.target) }, t("links.copy"))] : el("span", { class: "tag bot" }, botWords(s.bot)))),
      el("li", {}, t("links.spectators"), " ", el("a", { href: watch, class: "watch-link" }, t("links.watch")), " ", el("button", { type: "button", class: "copy", onclick: (e) => copy(watch, e.target) }, t("links.copy")))));
  refresh();
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = t("links.copied");
  } catch (e) {
    button.textContent = t("links.copy_failed");
  }
}

async function start() {
  const { body } = await api("/api/catalog");
  catalog = body.games;
  $("game-kind").replaceChildren(...catalog.map((g) => el("option", { value: g.key }, g.title)));
  $("game-kind").addEventListener("change", () => { drawOptions(); drawSeats(); });
  $("seat-count").addEventListener("change", drawSeatRows);
  drawOptions();
  drawSeats();
  $("create").addEventListener("submit", create);
  $("more-finished").addEventListener("click", () => { finishedOffset += 20; refresh(); });
  refresh();
  setInterval(refresh, 3000);
}

start();
