// The tournament pages: `/tournaments` (every tournament) and `/tournaments/<id>` (standings with each
// tie-break and rating, the rounds with their tables, each one click from watching its game). Both poll
// the JSON every 2 s (the gateway has no push channel for tournaments; a poll is one small GET).
import { botWords } from "./bots.js";
import { el, People } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api, bearer } from "./net.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const FORMATS = { swiss: t("tour.swiss"), round_robin: t("tour.round_robin"), elimination: t("tour.elimination") };
// Each tie-break's column heading, its short form for phones, what it counts, and its name in a sentence.
const TIE_BREAKS = {
  points: [t("tour.points"), t("tour.points_short"), t("tour.points_what"), t("tour.points_name")],
  opponents_points: [t("tour.opp"), t("tour.opp_short"), t("tour.opp_what"), t("tour.opp_name")],
  game_score: [t("tour.score"), t("tour.score_short"), t("tour.score_what"), t("tour.score_name")],
  wins: [t("tour.wins"), t("tour.wins_short"), t("tour.wins_what"), t("tour.wins_name")],
  progress: [t("tour.progress"), t("tour.progress_short"), t("tour.progress_what"), t("tour.progress_name")],
};

function heading(key) {
  const [long, short, what] = TIE_BREAKS[key] || [key, key, key];
  return el("th", { class: "num", title: what }, el("span", { class: "long" }, long), el("span", { class: "short" }, short));
}
const STATUS = { created: t("tour.not_started"), running: t("game.live"), paused: t("tour.paused"), finished: t("game.finished") };
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
  if (!you.round) what = t("tour.not_paired");
  else if (!you.game_id) what = t("tour.bye_yours", { round: you.round });
  else what = [t("tour.round_colon", { round: you.round }), " ", el("a", { class: "primary-link", id: "your-table", href: you.link },
    t(you.finished ? "tour.your_table_done" : "tour.play_your_table"))];
  return el("div", { class: "panel you-panel" }, el("b", {}, t("tour.you_are", { name: you.name }), " "), what, " ", tieToAccount());
}

/** Ties the person's entrant to the signed-in account (rated with it, listed in *my games*); issue 35. */
function tieToAccount() {
  const tid = decodeURIComponent(location.pathname.split("/").pop());
  const said = el("span", { id: "tie-result" });
  const tie = async () => {
    const { status, body } = await api(`/api/tournaments/${encodeURIComponent(tid)}/account`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key: personKey(tid) }) });
    said.textContent = status === 200 ? t("tour.tied") : body ? body.message : t("error.refused", { status });
  };
  return el("span", {}, el("button", { type: "button", id: "tie-account", onclick: tie }, t("tour.tie")), " ", said);
}

function badge(status) {
  return el("span", { class: "badge " + (status === "running" ? "live" : status) }, STATUS[status] || status);
}

function gameTitle(key) {
  return titles[key] || key;
}

function describe(tour) {
  const round = tour.status === "created" ? t("tour.rounds", { n: tour.rounds }) : t("tour.round_of", { round: tour.round, rounds: tour.rounds });
  const players = t(tour.players === 1 ? "tour.player_one" : "tour.players", { n: tour.players });
  return `${gameTitle(tour.game)} · ${FORMATS[tour.format] || tour.format} · ${players} · ${t("tour.tables_of", { n: tour.table_size })} · ${round}`;
}

function seconds(s) {
  return s >= 120 ? `${Math.round(s / 60)} min` : `${s} s`;
}

/** The clocks in words, or nothing when there are none. */
function clocks(clock) {
  if (!clock || (!clock.move_limit_s && !clock.total_limit_s)) return "";
  const parts = [];
  if (clock.move_limit_s) parts.push(t("tour.per_move", { time: seconds(clock.move_limit_s) }));
  if (clock.total_limit_s) parts.push(t("tour.per_game", { time: seconds(clock.total_limit_s) }));
  const then = t(clock.on_timeout === "forfeit" ? "tour.forfeits" : "tour.default_move");
  return t("tour.clock", { parts: parts.join(", "), then });
}

function setConn(text) {
  $("conn").textContent = text;
}

// --- the list -------------------------------------------------------------------------------------

function listRow(tour) {
  return el("a", { class: "game-row tournament-row", href: "/tournaments/" + encodeURIComponent(tour.tournament_id), "data-tournament": tour.tournament_id },
    el("b", {}, tour.tournament_id),
    el("span", { class: "names" }, describe(tour),
      tour.winners.length ? [" · ", tNodes("tables.won_by", { who: el("b", {}, tour.winners.join(", ")) })] : ""),
    badge(tour.status));
}

async function drawList() {
  $("title").textContent = "";
  const { status, body } = await api("/api/tournaments?limit=100");
  if (status !== 200) return setConn(t("lobby.unavailable"));
  const rows = body.tournaments;
  $("app").replaceChildren(el("div", { class: "panel" }, el("h2", {}, t("nav.tournaments")),
    rows.length ? el("div", { class: "games" }, rows.map(listRow))
      : el("p", {}, tNodes("tour.none", { command: el("code", {}, "harbormaster tournament run") }))));
  setConn(t("tour.list_conn", { n: rows.filter((tour) => tour.status === "running").length }));
}

// --- one tournament -------------------------------------------------------------------------------

function standingsTable(tour) {
  const you = tour.you || null;
  const names = new Map(tour.standings.map((r) => [r.player, r.name]));
  const head = el("tr", {}, el("th", { class: "num" }, "#"), el("th", { class: "num", title: t("tour.no_title") }, t("tour.no")), el("th", {}, t("players.player")),
    tour.tie_breaks.map(heading),
    el("th", { class: "num played", title: t("tour.tables_title") }, t("tour.tables")),
    el("th", { class: "num", title: t("tour.rating_title") }, t("tour.rating")));
  const rows = tour.standings.map((r) => {
    const before = lastPoints.get(r.player);
    const changed = before !== undefined && before !== r.points;
    const mine = you !== null && you.player === r.player;
    return el("tr", { class: [changed ? "changed" : "", mine ? "mine" : ""].join(" ").trim(), "data-player": r.player },
      el("td", { class: "num rank" }, r.rank), el("td", { class: "num player-no" }, r.player),
      el("td", {}, el("span", { class: "who", title: r.bot ? botWords(r.bot) : "" }, r.name), r.bot ? el("span", { class: "tag" }, botWords(r.bot)) : "",
        r.withdrawn ? el("span", { class: "tag withdrawn" }, t("tour.withdrawn")) : ""),
      tour.tie_breaks.map((k) => el("td", { class: "num " + k }, r[k])),
      el("td", { class: "num played" }, r.tables, r.byes ? el("small", {}, " ", t(r.byes > 1 ? "tour.byes" : "tour.bye_one", { n: r.byes })) : ""),
      el("td", { class: "num rating", title: `mu ${r.rating.mu.toFixed(2)}, sigma ${r.rating.sigma.toFixed(2)}` }, r.rating.ordinal.toFixed(1)));
  });
  lastPoints = new Map(tour.standings.map((r) => [r.player, r.points]));
  return [names, el("div", { class: "scroll" }, el("table", { class: "standings", id: "standings" }, el("thead", {}, head), el("tbody", {}, rows)))];
}

/** How a table stands: its result once its round closed, else its game's progress (from the live list). */
function tableState(table, live) {
  if (table.finished) return ["finished", t("game.finished")];
  if (!live) return ["", t("tour.waiting")];
  const seq = live.get(table.game_id);
  return seq === undefined ? ["finished", t("conn.game_over")] : ["live", t("tour.playing", { seq })];
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
  const go = t(mine && kind === "live" ? "tour.go_play" : kind === "live" ? "tour.go_watch" : "tour.go_replay");
  return el("a", { class: "table-row" + (mine ? " mine" : ""), href, "data-game": table.game_id, title: t(mine ? "tour.your_table" : "tour.watch_table") },
    el("span", { class: "table-no" }, t("tour.table", { n: table.table })), el("span", { class: "seated" }, who),
    el("span", { class: "badge " + kind }, text), el("span", { class: "watch" }, go));
}

function roundPanel(round, names, live, you) {
  const done = round.tables.filter((x) => tableState(x, live)[0] === "finished").length;
  const summary = round.closed ? t("game.finished") : t("tour.tables_done", { done, n: round.tables.length });
  return el("details", { class: "round", "data-round": round.round },
    el("summary", {}, el("b", {}, t("tour.round", { round: round.round })), ` · ${t(round.tables.length === 1 ? "tour.table_one" : "tour.tables_n", { n: round.tables.length })} · ${summary}`),
    round.tables.map((x) => tableRow(x, names, round.closed ? null : live, you)),
    round.byes.length ? el("p", { class: "byes" }, t("tour.bye_list"), " ", round.byes.map((p) => names.get(p)).join(", ")) : "");
}

/** Game id → events so far, of every live game (one request; null when the tournament is not running). */
async function liveGames(tour) {
  if (tour.status !== "running" && tour.status !== "paused") return null;
  const { status, body } = await api("/api/games?status=live&limit=500");
  return status === 200 ? new Map(body.games.map((g) => [g.game_id, g.seq])) : null;
}

function openRounds() {
  return new Set([...document.querySelectorAll("details.round")].filter((d) => d.open).map((d) => Number(d.dataset.round)));
}

async function drawTournament(tid) {
  const key = personKey(tid);
  const { status, body: tour } = await api("/api/tournaments/" + encodeURIComponent(tid), { headers: bearer(key) });
  if (status === 403 && key) {
    localStorage.removeItem("hm-tkey-" + tid); // not this tournament's key: show the page without it
    keyRefused = true;
    return drawTournament(tid);
  }
  if (status === 404) {
    $("app").replaceChildren(el("div", { class: "notice error" }, t("tour.missing", { id: tid }), " ", el("a", { href: "/tournaments" }, t("tour.all"))));
    return setConn(t("tour.not_found"));
  }
  if (status !== 200) return setConn(t("lobby.unavailable"));
  const live = await liveGames(tour);
  const seen = JSON.stringify([tour, live ? [...live] : null]);
  if (seen === lastSeen) return; // nothing changed: keep the page as it is (selection, hover, focus)
  lastSeen = seen;
  document.title = `Harbormaster — ${tour.tournament_id}`;
  $("title").textContent = tour.tournament_id;
  $("status").replaceWith(Object.assign(badge(tour.status), { id: "status" }));
  // Which rounds the reader opened survive the redraw; at first only the current round is open.
  const kept = document.querySelector("details.round") ? openRounds() : new Set();
  if (tour.round !== seenRound) kept.add(tour.round).delete(seenRound); // a new round opens, the old one folds
  seenRound = tour.round;
  const [names, standings] = standingsTable(tour);
  const rounds = [...tour.rounds_played].reverse().map((r) => roundPanel(r, names, live, tour.you || null));
  for (const d of rounds) d.open = kept.has(Number(d.dataset.round));
  const current = tour.rounds_played.find((r) => r.round === tour.round);
  const doneNow = current ? current.tables.filter((x) => tableState(x, live)[0] === "finished").length : 0;
  const progress = tour.tables ? el("progress", { max: tour.tables, value: doneNow }) : "";
  $("app").replaceChildren(el("div", { class: "tournament-layout" },
    el("section", {},
      tour.you ? yourTable(tour.you) : "",
      keyRefused ? el("div", { class: "notice error" }, t("tour.bad_key")) : "",
      el("div", { class: "panel" }, el("p", { class: "about" }, describe(tour)),
        clocks(tour.clock) ? el("p", { class: "about clock" }, clocks(tour.clock)) : "",
        tour.status === "running" || tour.status === "paused" ? el("p", { class: "about" }, t("tour.round_progress", { round: tour.round, done: doneNow, n: tour.tables }), " ", progress) : "",
        tour.winners.length ? el("p", { class: "winners" }, tNodes("tour.won_by", { who: el("b", {}, tour.winners.join(", ")) })) : ""),
      el("div", { class: "panel" }, el("h2", {}, t("tour.standings")), standings,
        el("p", { class: "hint-text" }, t("tour.ranked_by", { order: tour.tie_breaks.map((k) => (TIE_BREAKS[k] || [k, k, k, k])[3]).join(t("tour.then")) })))),
    el("aside", {}, el("div", { class: "panel" }, el("h2", {}, t("tour.rounds_title")),
      rounds.length ? rounds : el("p", {}, t("tour.not_started_yet"))))));
  setConn(t(tour.status === "running" ? "tour.conn_live" : "tour.conn_checked"));
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
      setConn(t("lobby.unavailable"));
    }
    document.body.dataset.updated = String(Date.now());
    setTimeout(tick, POLL_MS);
  };
  tick();
}

start();
