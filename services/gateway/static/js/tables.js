// The lobby's part for accounts: sign in, open tables (join with one click), open a table, "my games"
// with whose turn it is, and the leaderboards. Refreshed every 3 s, like the lobby's game lists.
import { mountAccount } from "./account.js";
import { BOTS, botWords } from "./bots.js";
import { el, People, replaceIfChanged } from "./dom.js";
import { lang, t, tNodes } from "./i18n.js";
import { api } from "./net.js";
import { TableChat } from "./table-chat.js";
import { describeOptions, drawOptionFields, readOptionFields } from "./options.js";

const $ = (id) => document.getElementById(id);
const JSON_HEADERS = { "Content-Type": "application/json" };
let me = null;
let catalog = [];
// The open tables the viewer sits at, as of the last refresh: when one leaves the open list (its creator
// started it, or someone took its last seat) the lobby opens its game, since only the one whose click
// started it hears the game's id in the answer.
let seatedAt = new Set();
let tableChat = null;

const sitsAt = (table) => Boolean(me) && table.seated.some((n) => n.toLowerCase() === me.toLowerCase());

/** The server's words for a table's clock ("5 min + 5 s/move", "3 days/move") in the page's language. */
const clockWords = (text) => text.replace(/(\d+) days?\/move/, (_, n) => t(n === "1" ? "tables.clock_day" : "tables.clock_days", { n })).replace(/\/move\b/g, t("tables.per_move"));

function clockLine(table) {
  if (!table.clock || table.clock === "no clock") return "";
  const up = t({ drop: "tables.timeout_drop", vote: "tables.timeout_vote" }[table.on_timeout] || "tables.timeout_bot");
  return el("div", { class: "table-clock" }, "⏱ ", clockWords(table.clock), " · ", up);
}

// Private tables and tables reached by an invite link are not in the lobby's list: the lobby asks for each
// by id (the link's ?table=, and the private tables this browser opened or joined, kept in localStorage).
const INVITED = new URLSearchParams(location.search).get("table");
const KEPT = "hm-private-tables";
const kept = () => { try { return JSON.parse(localStorage.getItem(KEPT) || "[]"); } catch { return []; } };
const keep = (ids) => localStorage.setItem(KEPT, JSON.stringify([...new Set(ids)].slice(-20)));
const inviteLink = (table) => `${location.origin}/?table=${table.table_id}`;

function startButton(table) {
  const game = catalog.find((g) => g.key === table.game);
  const players = table.seated.length + table.bots.length;
  const enough = !game || players >= game.min_seats;
  return el("button", { type: "button", class: "start primary", disabled: !enough, onclick: () => act(table.table_id, "start"),
    title: enough ? "" : t("tables.needs", { game: game.title, n: game.min_seats }) },
  t("tables.start_now", { n: players }));
}

function inviteBox(table) {
  const id = `invite-${table.table_id}`;
  const field = el("input", { id, class: "invite-link", readonly: "", value: inviteLink(table) });
  const copy = el("button", { type: "button", class: "copy-invite", onclick: () => { field.select(); navigator.clipboard?.writeText(field.value); } }, t("receipts.copy"));
  return el("div", { class: "invite" }, el("label", { for: id }, t("tables.invite"), " "), field, copy);
}

function tableRow(table) {
  const seated = sitsAt(table);
  const mine = me && table.creator.toLowerCase() === me.toLowerCase();
  // A full table waits for its creator, not for anyone else: no Join button on it.
  const join = table.free > 0 ? el("button", { type: "button", class: "join", "data-table": table.table_id, disabled: !me || seated,
    title: me ? "" : t("tables.sign_in_to_join"), onclick: () => act(table.table_id, "join") }, t(seated ? "tables.seated" : "tables.join")) : "";
  const badge = table.free > 0 ? t("tables.free", { free: table.free, seats: table.seats }) : t("tables.full", { creator: table.creator });
  const leave = seated ? el("button", { type: "button", class: "leave", onclick: () => act(table.table_id, "leave") }, t(mine ? "tables.cancel" : "tables.leave")) : "";
  return el("div", { class: "table-row" + (table.table_id === INVITED ? " invited" : ""), "data-table": table.table_id },
    table.table_id === INVITED ? el("div", { class: "notice" }, t("tables.invited")) : "",
    el("b", {}, table.title), " ", el("span", { class: "badge" }, badge),
    table.rated ? el("span", { class: "tag" }, t("tables.tag_rated")) : "", table.private ? el("span", { class: "tag" }, t("tables.tag_private")) : "",
    el("div", { class: "names" }, t("tables.seated_list"), " ", table.seated.join(", "), table.bots.length ? ` + ${table.bots.map(botWords).join(", ")}` : ""),
    el("div", { class: "options" }, describeOptions(table.game, table.options)), clockLine(table),
    seated ? inviteBox(table) : "", join, mine ? startButton(table) : "", leave);
}

/** The open tables not in the lobby's list that this page knows of: the invited one, kept private ones. */
async function unlisted(listed) {
  const ids = [...new Set([INVITED, ...kept()].filter((id) => id && !listed.some((t) => t.table_id === id)))];
  const found = [];
  for (const id of ids) {
    const { status, body } = await api(`/api/tables/${id}`);
    if (status === 200 && (body.status === "open" || seatedAt.has(id))) found.push(body);
  }
  keep(found.filter((t) => t.private && t.status === "open" && sitsAt(t)).map((t) => t.table_id));
  return found;
}

async function act(tableId, verb) {
  const { status, body } = await api(`/api/tables/${tableId}/${verb}`, { method: "POST" });
  if (status === 200 && body.game_id) return void (location.href = `/games/${body.game_id}`);
  // A table of ours refused as closed may have started meanwhile (its last seat taken): open its game.
  if (status === 409 && seatedAt.has(tableId) && (await openStarted([tableId]))) return;
  if (status !== 200) return say($("tables-message"), body ? body.message : t("error.refused", { status }));
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

const DAY = new Intl.DateTimeFormat(lang, { year: "numeric", month: "short", day: "numeric" });

/** The winner(s) of a finished game in words, "you" for the viewer's seat; empty until the server knows. */
function winnerWords(game, people) {
  if (game.status !== "finished" || !game.winners.length) return "";
  return el("span", { class: "winner" }, tNodes("tables.won_by", { who: el("span", {}, game.winners.map((s, i) => [i ? " & " : "", s === game.seat ? t("tables.you") : people.who(s)])) }));
}

function myGameRow(game) {
  const people = new People(game.names);
  const turn = game.status === "finished" ? t("game.finished") : game.your_turn ? t("tables.your_turn") : game.to_act.length ? tNodes("tables.waiting_for", { who: el("span", {}, game.to_act.map((s) => people.who(s))) }) : "";
  const others = game.names.map((_, s) => s).filter((s) => s !== game.seat);
  return el("a", { class: "game-row my-game" + (game.your_turn ? " your-turn" : ""), href: `/games/${game.game_id}`, "data-game": game.game_id },
    el("b", {}, game.title), game.created_ms ? el("time", { datetime: new Date(game.created_ms).toISOString() }, DAY.format(game.created_ms)) : "",
    el("span", { class: "names" }, tNodes("tables.with", { who: el("span", {}, others.map((s, i) => [i ? ", " : "", people.who(s)])) })),
    winnerWords(game, people), el("span", { class: "badge " + (game.your_turn ? "live" : game.status) }, turn));
}

async function refresh() {
  const tables = await api("/api/tables");
  if (tables.status === 200) {
    const known = await unlisted(tables.body.tables);
    const open = [...known.filter((t) => t.status === "open"), ...tables.body.tables];
    const gone = [...seatedAt].filter((id) => !open.some((t) => t.table_id === id));
    seatedAt = new Set(open.filter(sitsAt).map((t) => t.table_id));
    if (gone.length && (await openStarted(gone))) return;
    replaceIfChanged($("tables"), open.length ? open.map(tableRow) : [el("p", {}, t("tables.none"))]);
    tableChat.show(open.find(sitsAt) || null);
  }
  const panel = $("my-games-panel");
  panel.hidden = !me;
  if (!me) return;
  const mine = await api("/api/me/games");
  if (mine.status === 200) {
    replaceIfChanged($("my-games"), mine.body.games.length ? mine.body.games.map(myGameRow) : [el("p", {}, t("tables.no_games"))]);
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
  const spec = { game: $("table-game").value, seats, options: readOptionFields($("table-options")), rated: $("table-rated").checked, bots, private: $("table-private").checked };
  const clock = chosenClock();
  if (clock) spec.clock = clock;
  const { status, body } = await api("/api/tables", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify(spec) });
  if (status !== 201) return say($("open-table-message"), body ? body.message : t("error.refused", { status }));
  if (body.game_id) return void (location.href = `/games/${body.game_id}`); // filled by its creator and bots
  if (body.private) keep([...kept(), body.table_id]);
  say($("open-table-message"), "");
  refresh();
}

async function start() {
  tableChat = new TableChat($("table-chat-panel"));
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
