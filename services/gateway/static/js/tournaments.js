// The tournament pages: `/tournaments` (every tournament) and `/tournaments/<id>` (standings with each
// tie-break and rating, the rounds with their tables, each one click from watching its game). Both poll
// the JSON every 2 s (the gateway has no push channel for tournaments; a poll is one small GET).
import { el, People, plural } from "./dom.js";
import { api, bearer } from "./net.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const FORMATS = { swiss: "Swiss", round_robin: "Round-robin", elimination: "Single elimination" };
// Each tie-break's column heading, its short form for phones, what it counts, and its name in a sentence.
const TIE_BREAKS = {
  points: ["Points", "Pts", "tournament points by place at each table", "points"],
  opponents_points: ["Opp. pts", "Opp.", "sum of the current points of everyone the player sat with, per table", "opponents' points"],
  game_score: ["Game score", "Score", "sum of the player's in-game scores (money, wealth, florins)", "in-game score"],
  wins: ["Wins", "W", "tables won", "wins"],
  progress: ["Progress", "Prog.", "how far the player got (elimination)", "progress"],
};

function heading(key) {
  const [long, short, what] = TIE_BREAKS[key] || [key, key, key];
  return el("th", { class: "num", title: what }, el("span", { class: "long" }, long), el("span", { class: "short" }, short));
}
const STATUS = { created: "not started", running: "live", paused: "paused", finished: "finished" };
let titles = {};
let lastPoints = new Map();
let seenRound = null;
let lastSeen = "";
let keyRefused = false;

/** A person entrant's key: from the link (`#key=…`, kept in this browser's storage), never shown. */
function personKey(tid) {
  const found = new URLSearchParams(location.hash.slice(1)).get("key");
  if (found && !keyRefused) {
    localStorage.setItem("hm-tkey-" + tid, found);
    history.replaceState(null, "", location.pathname); // out of the address bar, out of screenshots
  }
  return keyRefused ? null : localStorage.getItem("hm-tkey-" + tid);
}

/** Where the person with the key plays now, one click away. */
function yourTable(you) {
  let what;
  if (!you.round) what = "Round 1 has not been paired yet.";
  else if (!you.game_id) what = `Round ${you.round}: you have a bye.`;
  else what = [`Round ${you.round}: `, el("a", { class: "primary-link", id: "your-table", href: you.link },
    you.finished ? "your table (finished) ›" : "play your table ›")];
  return el("div", { class: "panel you-panel" }, el("b", {}, `You are ${you.name}. `), what, " ", tieToAccount());
}

/** Ties the person's entrant to the signed-in account (rated with it, listed in *my games*); issue 35. */
function tieToAccount() {
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const said = el("span", { id: "tie-result" });
  const tie = async () => {
    const { status, body } = await api(`/api/tournaments/${encodeURIComponent(tid)}/account`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key: personKey(tid) }) });
    said.textContent = status === 200 ? "Tied to your account: its games count for your rating." : body ? body.message : `refused (${status})`;
  };
  return el("span", {}, el("button", { type: "button", id: "tie-account", onclick: tie }, "Tie to my account"), " ", said);
}

function badge(status) {
  return el("span", { class: "badge " + (status === "running" ? "live" : status) }, STATUS[status] || status);
}

function gameTitle(key) {
  return titles[key] || key;
}

function describe(t) {
  const round = t.status === "created" ? `${t.rounds} rounds` : `round ${t.round} of ${t.rounds}`;
  return `${gameTitle(t.game)} · ${FORMATS[t.format] || t.format} · ${plural(t.players, "player")} · tables of ${t.table_size} · ${round}`;
}

function seconds(s) {
  return s >= 120 ? `${Math.round(s / 60)} min` : `${s} s`;
}

/** The clocks in words, or nothing when there are none. */
function clocks(clock) {
  if (!clock || (!clock.move_limit_s && !clock.total_limit_s)) return "";
  const parts = [];
  if (clock.move_limit_s) parts.push(`${seconds(clock.move_limit_s)} per move`);
  if (clock.total_limit_s) parts.push(`${seconds(clock.total_limit_s)} per game`);
  const then = clock.on_timeout === "forfeit" ? "a seat out of time forfeits" : "a seat out of time plays its default move";
  return `Clock: ${parts.join(", ")}; ${then}.`;
}

function setConn(text) {
  $("conn").textContent = text;
}

// --- the list -------------------------------------------------------------------------------------

function listRow(t) {
  return el("a", { class: "game-row tournament-row", href: "/tournaments/" + encodeURIComponent(t.tournament_id), "data-tournament": t.tournament_id },
    el("b", {}, t.tournament_id),
    el("span", { class: "names" }, describe(t),
      t.winners.length ? [" · won by ", el("b", {}, t.winners.join(", "))] : ""),
    badge(t.status));
}

async function drawList() {
  $("title").textContent = "";
  const { status, body } = await api("/api/tournaments?limit=100");
  if (status !== 200) return setConn("gateway unavailable");
  const rows = body.tournaments;
  $("app").replaceChildren(el("div", { class: "panel" }, el("h2", {}, "Tournaments"),
    rows.length ? el("div", { class: "games" }, rows.map(listRow))
      : el("p", {}, "No tournament yet. Start one with ", el("code", {}, "harbormaster tournament run"), " or POST /api/tournaments.")));
  setConn(`${rows.filter((t) => t.status === "running").length} live · updated every 2 s`);
}

// --- one tournament -------------------------------------------------------------------------------

function standingsTable(t) {
  const you = t.you || null;
  const names = new Map(t.standings.map((r) => [r.player, r.name]));
  const head = el("tr", {}, el("th", { class: "num" }, "#"), el("th", { class: "num", title: "the player's number, as harbormaster tournament withdraw and replace take it" }, "No."), el("th", {}, "Player"),
    t.tie_breaks.map(heading),
    el("th", { class: "num played", title: "tables played (and byes)" }, "Tables"),
    el("th", { class: "num", title: "OpenSkill (Plackett-Luce) rating shown as mu − 3 sigma" }, "Rating"));
  const rows = t.standings.map((r) => {
    const before = lastPoints.get(r.player);
    const changed = before !== undefined && before !== r.points;
    const mine = you !== null && you.player === r.player;
    return el("tr", { class: [changed ? "changed" : "", mine ? "mine" : ""].join(" ").trim(), "data-player": r.player },
      el("td", { class: "num rank" }, r.rank), el("td", { class: "num player-no" }, r.player),
      el("td", {}, el("span", { class: "who", title: r.bot ? `${r.bot} bot` : "" }, r.name), r.bot ? el("span", { class: "tag" }, `${r.bot} bot`) : "",
        r.withdrawn ? el("span", { class: "tag withdrawn" }, "withdrawn") : ""),
      t.tie_breaks.map((k) => el("td", { class: "num " + k }, r[k])),
      el("td", { class: "num played" }, r.tables, r.byes ? el("small", {}, ` +${r.byes} bye${r.byes > 1 ? "s" : ""}`) : ""),
      el("td", { class: "num rating", title: `mu ${r.rating.mu.toFixed(2)}, sigma ${r.rating.sigma.toFixed(2)}` }, r.rating.ordinal.toFixed(1)));
  });
  lastPoints = new Map(t.standings.map((r) => [r.player, r.points]));
  return [names, el("div", { class: "scroll" }, el("table", { class: "standings", id: "standings" }, el("thead", {}, head), el("tbody", {}, rows)))];
}

/** How a table stands: its result once its round closed, else its game's progress (from the live list). */
function tableState(table, live) {
  if (table.finished) return ["finished", "finished"];
  if (!live) return ["", "waiting"];
  const seq = live.get(table.game_id);
  return seq === undefined ? ["finished", "game over"] : ["live", `playing · ${seq} events`];
}

function tableRow(table, names, live, you) {
  const people = new People(table.players.map((p) => names.get(p)));
  const [kind, text] = tableState(table, live);
  let who;
  if (table.finished) {
    // The ranking lists players first to last, each with their in-game score.
    who = table.ranking.map((p, i) => el("span", { class: "placed" }, el("b", {}, `${i + 1}.`), " ",
      people.who(table.players.indexOf(p)), el("small", {}, ` ${table.scores[i]}`)));
  } else {
    who = table.players.map((_, seat) => people.who(seat));
  }
  // The person's own table opens with their seat; every other table as a spectator.
  const mine = you && you.game_id === table.game_id && you.link;
  const href = mine ? you.link : "/games/" + encodeURIComponent(table.game_id);
  const go = mine && kind === "live" ? "play ›" : kind === "live" ? "watch ›" : "replay ›";
  return el("a", { class: "table-row" + (mine ? " mine" : ""), href, "data-game": table.game_id, title: mine ? "your table" : "watch this table" },
    el("span", { class: "table-no" }, `Table ${table.table}`), el("span", { class: "seated" }, who),
    el("span", { class: "badge " + kind }, text), el("span", { class: "watch" }, go));
}

function roundPanel(round, names, live, you) {
  const done = round.tables.filter((x) => tableState(x, live)[0] === "finished").length;
  const summary = round.closed ? "finished" : `${done}/${round.tables.length} tables finished`;
  return el("details", { class: "round", "data-round": round.round },
    el("summary", {}, el("b", {}, `Round ${round.round}`), ` · ${plural(round.tables.length, "table")} · ${summary}`),
    round.tables.map((x) => tableRow(x, names, round.closed ? null : live, you)),
    round.byes.length ? el("p", { class: "byes" }, "Bye: ", round.byes.map((p) => names.get(p)).join(", ")) : "");
}

/** Game id → events so far, of every live game (one request; null when the tournament is not running). */
async function liveGames(t) {
  if (t.status !== "running" && t.status !== "paused") return null;
  const { status, body } = await api("/api/games?status=live&limit=500");
  return status === 200 ? new Map(body.games.map((g) => [g.game_id, g.seq])) : null;
}

function openRounds() {
  return new Set([...document.querySelectorAll("details.round")].filter((d) => d.open).map((d) => Number(d.dataset.round)));
}

async function drawTournament(tid) {
  const key = personKey(tid);
  const { status, body: t } = await api("/api/tournaments/" + encodeURIComponent(tid), { headers: bearer(key) });
  if (status === 403 && key) {
    localStorage.removeItem("hm-tkey-" + tid); // not this tournament's key: show the page without it
    keyRefused = true;
    return drawTournament(tid);
  }
  if (status === 404) {
    $("app").replaceChildren(el("div", { class: "notice error" }, `There is no tournament “${tid}”. `, el("a", { href: "/tournaments" }, "All tournaments")));
    return setConn("not found");
  }
  if (status !== 200) return setConn("gateway unavailable");
  const live = await liveGames(t);
  const seen = JSON.stringify([t, live ? [...live] : null]);
  if (seen === lastSeen) return; // nothing changed: keep the page as it is (selection, hover, focus)
  lastSeen = seen;
  document.title = `Harbormaster — ${t.tournament_id}`;
  $("title").textContent = t.tournament_id;
  $("status").replaceWith(Object.assign(badge(t.status), { id: "status" }));
  // Which rounds the reader opened survive the redraw; at first only the current round is open.
  const kept = document.querySelector("details.round") ? openRounds() : new Set();
  if (t.round !== seenRound) kept.add(t.round).delete(seenRound); // a new round opens, the old one folds
  seenRound = t.round;
  const [names, standings] = standingsTable(t);
  const rounds = [...t.rounds_played].reverse().map((r) => roundPanel(r, names, live, t.you || null));
  for (const d of rounds) d.open = kept.has(Number(d.dataset.round));
  const current = t.rounds_played.find((r) => r.round === t.round);
  const doneNow = current ? current.tables.filter((x) => tableState(x, live)[0] === "finished").length : 0;
  const progress = t.tables ? el("progress", { max: t.tables, value: doneNow }) : "";
  $("app").replaceChildren(el("div", { class: "tournament-layout" },
    el("section", {},
      t.you ? yourTable(t.you) : "",
      keyRefused ? el("div", { class: "notice error" }, "That link's key is not of a player in this tournament.") : "",
      el("div", { class: "panel" }, el("p", { class: "about" }, describe(t)),
        clocks(t.clock) ? el("p", { class: "about clock" }, clocks(t.clock)) : "",
        t.status === "running" || t.status === "paused" ? el("p", { class: "about" }, `Round ${t.round}: ${doneNow} of ${t.tables} tables finished `, progress) : "",
        t.winners.length ? el("p", { class: "winners" }, "Won by ", el("b", {}, t.winners.join(", "))) : ""),
      el("div", { class: "panel" }, el("h2", {}, "Standings"), standings,
        el("p", { class: "hint-text" }, "Ranked by ", t.tie_breaks.map((k) => (TIE_BREAKS[k] || [k, k, k, k])[3]).join(", then "), ". Standings count closed rounds."))),
    el("aside", {}, el("div", { class: "panel" }, el("h2", {}, "Rounds"),
      rounds.length ? rounds : el("p", {}, "Not started yet.")))));
  setConn(t.status === "running" ? "live · updated every 2 s" : "checked every 2 s");
}

async function start() {
  const catalog = await api("/api/catalog");
  if (catalog.status === 200) titles = Object.fromEntries(catalog.body.games.map((g) => [g.key, g.title]));
  const match = location.pathname.match(/^\/tournaments\/(.+)$/);
  const draw = match ? () => drawTournament(decodeURIComponent(match[1])) : drawList;
  // A redraw between a press and its release would swallow the click: none while a pointer is down.
  let pressed = false;
  addEventListener("pointerdown", () => (pressed = true));
  addEventListener("pointerup", () => setTimeout(() => (pressed = false), 300));
  // A new link pasted over this page's (`#key=…`) is read at once.
  addEventListener("hashchange", () => {
    keyRefused = false;
    lastSeen = "";
    draw();
  });
  const tick = async () => {
    try {
      if (!pressed) await draw();
    } catch (e) {
      setConn("gateway unavailable");
    }
    document.body.dataset.updated = String(Date.now());
    setTimeout(tick, POLL_MS);
  };
  tick();
}

start();
