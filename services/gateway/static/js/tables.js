// The lobby's part for accounts: sign in, open tables (join with one click), open a table, "my games"
// with whose turn it is, and the leaderboards. Refreshed every 3 s, like the lobby's game lists.
import { mountAccount } from "./account.js";
import { BOTS } from "./bots.js";
import { el, People } from "./dom.js";
import { api } from "./net.js";
import { describeOptions, drawOptionFields, readOptionFields } from "./options.js";

const $ = (id) => document.getElementById(id);
const JSON_HEADERS = { "Content-Type": "application/json" };
let me = null;
let catalog = [];
// The open tables the viewer sits at, as of the last refresh: when one leaves the open list (its creator
// started it, or someone took its last seat) the lobby opens its game, since only the one whose click
// started it hears the game's id in the answer.
let seatedAt = new Set();

const sitsAt = (table) => Boolean(me) && table.seated.some((n) => n.toLowerCase() === me.toLowerCase());

function clockLine(table) {
  if (!table.clock || table.clock === "no clock") return "";
  const up = table.on_timeout === "drop" ? "out of time: dropped" : "out of time: a bot takes the seat";
  return el("div", { class: "table-clock" }, "⏱ ", table.clock, " · ", up);
}

function tableRow(table) {
  const seated = sitsAt(table);
  const join = el("button", { type: "button", class: "join", "data-table": table.table_id, disabled: !me || seated,
    title: me ? "" : "sign in to take a seat", onclick: () => act(table.table_id, "join") }, seated ? "seated" : "Join");
  const mine = me && table.creator.toLowerCase() === me.toLowerCase();
  const start = mine ? el("button", { type: "button", class: "start", onclick: () => act(table.table_id, "start") }, "Start now") : "";
  const leave = seated ? el("button", { type: "button", class: "leave", onclick: () => act(table.table_id, "leave") }, mine ? "Cancel" : "Leave") : "";
  return el("div", { class: "table-row", "data-table": table.table_id },
    el("b", {}, table.title), " ", el("span", { class: "badge" }, `${table.free} of ${table.seats} seats free`),
    table.rated ? el("span", { class: "tag" }, "rated") : "",
    el("div", { class: "names" }, "Seated: ", table.seated.join(", "), table.bots.length ? ` + ${table.bots.map((b) => b + " bot").join(", ")}` : ""),
    el("div", { class: "options" }, describeOptions(table.game, table.options)), clockLine(table), join, start, leave);
}

async function act(tableId, verb) {
  const { status, body } = await api(`/api/tables/${tableId}/${verb}`, { method: "POST" });
  if (status === 200 && body.game_id) return void (location.href = `/games/${body.game_id}`);
  // A table of ours refused as closed may have started meanwhile (its last seat taken): open its game.
  if (status === 409 && seatedAt.has(tableId) && (await openStarted([tableId]))) return;
  if (status !== 200) return say($("tables-message"), body ? body.message : `refused (${status})`);
  refresh();
}

/** Opens the game of the first of these tables that has one; false when none has. */
async function openStarted(tableIds) {
  for (const id of tableIds) {
    const { status, body } = await api(`/api/tables/${id}`);
    if (status === 200 && body.game_id) {
      location.href = `/games/${body.game_id}`;
      return true;
    }
  }
  return false;
}

function say(box, text) {
  box.replaceChildren(text ? el("div", { class: "notice error" }, text) : "");
}

function myGameRow(game) {
  const people = new People(game.names);
  const turn = game.status === "finished" ? "finished" : game.your_turn ? "your turn" : game.to_act.length ? ["waiting for ", game.to_act.map((s) => people.who(s))] : "";
  return el("a", { class: "game-row my-game" + (game.your_turn ? " your-turn" : ""), href: `/games/${game.game_id}`, "data-game": game.game_id },
    el("b", {}, game.title), el("span", { class: "names" }, game.names.map((_, s) => [s ? " · " : "", people.who(s)])),
    el("span", { class: "badge " + (game.your_turn ? "live" : game.status) }, turn));
}

async function refresh() {
  const tables = await api("/api/tables");
  if (tables.status === 200) {
    const open = tables.body.tables;
    const gone = [...seatedAt].filter((id) => !open.some((t) => t.table_id === id));
    seatedAt = new Set(open.filter(sitsAt).map((t) => t.table_id));
    if (gone.length && (await openStarted(gone))) return;
    $("tables").replaceChildren(...(open.length ? open.map(tableRow) : [el("p", {}, "No table is waiting for players.")]));
  }
  const panel = $("my-games-panel");
  panel.hidden = !me;
  if (!me) return;
  const mine = await api("/api/me/games");
  if (mine.status === 200) {
    $("my-games").replaceChildren(...(mine.body.games.length ? mine.body.games.map(myGameRow) : [el("p", {}, "You sit at no game yet.")]));
  }
}

function drawTableForm() {
  const game = catalog.find((g) => g.key === $("table-game").value);
  const count = $("table-seats");
  count.replaceChildren(...Array.from({ length: game.max_seats - game.min_seats + 1 }, (_, i) => el("option", { value: game.min_seats + i }, game.min_seats + i)));
  drawOptionFields($("table-options"), game.key);
}

/** The clock chosen in the form: a preset, custom values, or null for none. */
function chosenClock() {
  const choice = $("table-clock").value;
  const on_timeout = $("table-timeout").value;
  if (choice === "none") return null;
  if (choice === "custom-realtime") return { kind: "realtime", minutes: Number($("table-clock-minutes").value), increment_s: Number($("table-clock-increment").value), on_timeout };
  if (choice === "custom-turn") return { kind: "turn", hours: Number($("table-clock-hours").value), on_timeout };
  return { preset: choice, on_timeout };
}

function drawClockForm() {
  const choice = $("table-clock").value;
  $("table-clock-realtime").hidden = choice !== "custom-realtime";
  $("table-clock-turn").hidden = choice !== "custom-turn";
  $("table-clock-timeout").hidden = choice === "none";
}

async function openTable(event) {
  event.preventDefault();
  const seats = Number($("table-seats").value);
  const bots = Array.from({ length: Number($("table-bots").value) }, () => $("table-bot-kind").value);
  const spec = { game: $("table-game").value, seats, options: readOptionFields($("table-options")), rated: $("table-rated").checked, bots };
  const clock = chosenClock();
  if (clock) spec.clock = clock;
  const { status, body } = await api("/api/tables", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(spec) });
  if (status !== 201) return say($("open-table-message"), body ? body.message : `refused (${status})`);
  say($("open-table-message"), "");
  refresh();
}

async function start() {
  const { body } = await api("/api/catalog");
  catalog = body.games;
  $("table-game").replaceChildren(...catalog.map((g) => el("option", { value: g.key }, g.title)));
  $("table-bot-kind").replaceChildren(...BOTS.map(([v, t]) => el("option", { value: v }, t)));
  $("table-game").addEventListener("change", drawTableForm);
  drawTableForm();
  $("open-table").addEventListener("submit", openTable);
  $("table-clock").addEventListener("change", drawClockForm);
  $("leaderboards").replaceChildren(...catalog.map((g) => el("a", { href: `/leaderboards/${g.key}`, class: "inline" }, g.title)));
  await mountAccount($("account"), (name) => {
    me = name;
    $("open-table-panel").hidden = !me;
    refresh();
  });
  setInterval(refresh, 3000);
}

start();
