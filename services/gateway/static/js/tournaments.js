// The tournament pages: `/tournaments` (every tournament) and `/tournaments/<id>` (standings with each
// tie-break and rating, the rounds with their tables, each one click from watching its game). Both poll
// the JSON every 2 s (the gateway has no push channel for tournaments; a poll is one small GET).
import { el, People, plural } from "./dom.js";
import { api } from "./net.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const FORMATS = { swiss: "Swiss", round_robin: "Round-robin", elimination: "Single elimination" };
const TIE_BREAKS = {
  points: ["Points", "tournament points by place at each table"],
  opponents_points: ["Opp. pts", "sum of the current points of everyone the player sat with, per table"],
  game_score: ["Game score", "sum of the player's in-game scores (money, wealth, florins)"],
  wins: ["Wins", "tables won"],
  progress: ["Progress", "how far the player got (elimination)"],
};
const STATUS = { created: "not started", running: "live", paused: "paused", finished: "finished" };
let titles = {};
let lastPoints = new Map();

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

function setConn(text) {
  $("conn").textContent = text;
}

// --- the list -------------------------------------------------------------------------------------

function listRow(t) {
  const progress = t.status === "running" || t.status === "paused" ? `${t.tables_finished}/${t.tables} tables done` : "";
  return el("a", { class: "game-row tournament-row", href: "/tournaments/" + encodeURIComponent(t.tournament_id), "data-tournament": t.tournament_id },
    el("b", {}, t.tournament_id),
    el("span", { class: "names" }, describe(t), progress ? [" · ", progress] : "",
      t.winners.length ? [" · won by ", el("b", {}, t.winners.join(", "))] : ""),
    badge(t.status));
}

async function drawList() {
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
  const names = new Map(t.standings.map((r) => [r.player, r.name]));
  const head = el("tr", {}, el("th", { class: "num" }, "#"), el("th", {}, "Player"),
    t.tie_breaks.map((k) => el("th", { class: "num", title: (TIE_BREAKS[k] || [k, k])[1] }, (TIE_BREAKS[k] || [k])[0])),
    el("th", { class: "num", title: "tables played (and byes)" }, "Tables"),
    el("th", { class: "num", title: "OpenSkill (Plackett-Luce) rating shown as mu − 3 sigma" }, "Rating"));
  const rows = t.standings.map((r) => {
    const before = lastPoints.get(r.player);
    const changed = before !== undefined && before !== r.points;
    return el("tr", { class: changed ? "changed" : "", "data-player": r.player },
      el("td", { class: "num rank" }, r.rank),
      el("td", {}, el("span", { class: "who" }, r.name), r.bot ? el("span", { class: "tag" }, `${r.bot} bot`) : ""),
      t.tie_breaks.map((k) => el("td", { class: "num " + k }, r[k])),
      el("td", { class: "num" }, r.tables, r.byes ? el("small", {}, ` +${r.byes} bye${r.byes > 1 ? "s" : ""}`) : ""),
      el("td", { class: "num rating", title: `mu ${r.rating.mu.toFixed(2)}, sigma ${r.rating.sigma.toFixed(2)}` }, r.rating.ordinal.toFixed(1)));
  });
  lastPoints = new Map(t.standings.map((r) => [r.player, r.points]));
  return [names, el("div", { class: "scroll" }, el("table", { class: "standings", id: "standings" }, el("thead", {}, head), el("tbody", {}, rows)))];
}

function tableRow(table, names, live) {
  const people = new People(table.players.map((p) => names.get(p)));
  const state = table.finished ? el("span", { class: "badge finished" }, "finished")
    : el("span", { class: "badge " + (live ? "live" : "") }, live ? "playing" : "waiting");
  let who;
  if (table.finished) {
    // The ranking lists players first to last, each with their in-game score.
    who = table.ranking.map((p, i) => el("span", { class: "placed" }, el("b", {}, `${i + 1}.`), " ",
      people.who(table.players.indexOf(p)), el("small", {}, ` ${table.scores[i]}`)));
  } else {
    who = table.players.map((_, seat) => people.who(seat));
  }
  return el("a", { class: "table-row", href: "/games/" + encodeURIComponent(table.game_id), "data-game": table.game_id, title: "watch this table" },
    el("span", { class: "table-no" }, `Table ${table.table}`), el("span", { class: "seated" }, who), state,
    el("span", { class: "watch" }, table.finished ? "replay ›" : "watch ›"));
}

function roundPanel(round, names, current, status) {
  const live = round.round === current && status === "running";
  const done = round.tables.filter((x) => x.finished).length;
  const summary = round.closed ? "finished" : `${done}/${round.tables.length} tables finished`;
  const box = el("details", { class: "round", "data-round": round.round, open: round.round === current || null },
    el("summary", {}, el("b", {}, `Round ${round.round}`), ` · ${plural(round.tables.length, "table")} · ${summary}`),
    round.tables.map((x) => tableRow(x, names, live)),
    round.byes.length ? el("p", { class: "byes" }, "Bye: ", round.byes.map((p) => names.get(p)).join(", ")) : "");
  return box;
}

function openRounds() {
  return new Set([...document.querySelectorAll("details.round")].filter((d) => d.open).map((d) => Number(d.dataset.round)));
}

async function drawTournament(tid) {
  const { status, body: t } = await api("/api/tournaments/" + encodeURIComponent(tid));
  if (status === 404) {
    $("app").replaceChildren(el("div", { class: "notice error" }, `There is no tournament “${tid}”. `, el("a", { href: "/tournaments" }, "All tournaments")));
    return setConn("not found");
  }
  if (status !== 200) return setConn("gateway unavailable");
  document.title = `Harbormaster — ${t.tournament_id}`;
  $("title").textContent = t.tournament_id;
  $("status").replaceWith(Object.assign(badge(t.status), { id: "status" }));
  const kept = document.querySelector("details.round") ? openRounds() : null;
  const [names, standings] = standingsTable(t);
  const rounds = [...t.rounds_played].reverse().map((r) => roundPanel(r, names, t.round, t.status));
  if (kept) for (const d of rounds) d.open = kept.has(Number(d.dataset.round)) || (Number(d.dataset.round) === t.round && !kept.size);
  const progress = t.tables ? el("progress", { max: t.tables, value: t.tables_finished }) : "";
  $("app").replaceChildren(el("div", { class: "tournament-layout" },
    el("section", {},
      el("div", { class: "panel" }, el("p", { class: "about" }, describe(t)),
        t.status === "running" || t.status === "paused" ? el("p", { class: "about" }, `Round ${t.round}: ${t.tables_finished} of ${t.tables} tables finished `, progress) : "",
        t.winners.length ? el("p", { class: "winners" }, "🏆 Won by ", el("b", {}, t.winners.join(", "))) : ""),
      el("div", { class: "panel" }, el("h2", {}, "Standings"), standings,
        el("p", { class: "hint-text" }, "Ranked by ", t.tie_breaks.map((k) => (TIE_BREAKS[k] || [k])[0].toLowerCase()).join(", then "), ". Standings count closed rounds."))),
    el("aside", {}, el("div", { class: "panel" }, el("h2", {}, "Rounds"),
      rounds.length ? rounds : el("p", {}, "Not started yet.")))));
  setConn(t.status === "running" ? "live · updated every 2 s" : `updated ${new Date().toLocaleTimeString()}`);
}

async function start() {
  const catalog = await api("/api/catalog");
  if (catalog.status === 200) titles = Object.fromEntries(catalog.body.games.map((g) => [g.key, g.title]));
  const match = location.pathname.match(/^\/tournaments\/(.+)$/);
  const draw = match ? () => drawTournament(decodeURIComponent(match[1])) : drawList;
  const tick = async () => {
    try {
      await draw();
    } catch (e) {
      setConn("gateway unavailable");
    }
    document.body.dataset.updated = String(Date.now());
    setTimeout(tick, POLL_MS);
  };
  tick();
}

start();
