// A game's page: the shell around the game's board module (boards/<game>.js). Live over the WebSocket;
// a seat holder plays by clicking highlighted targets on the board; every game can be replayed by move.
import { el, People } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api, bearer, sendOverHttp, SocketCommands } from "./net.js";
import { Chat } from "./chat.js";
import { Announcer } from "./shell/announce.js";
import { MoveClocks } from "./shell/clocks.js";
import { Decision } from "./shell/decide.js";
import { GameLog } from "./shell/log.js";
import { changedPlaces, focusedKey, listenForKeys, markLastMove, nameThePlaces, offerToKeyboard, restoreFocus, signature, zoomForTouch } from "./shell/places.js";
import { factsBeside } from "./shell/facts.js";
import { keepFocus, noteFocus } from "./shell/keep-focus.js";
import { finalTable, playersPanel } from "./shell/players.js";
import { showRatings } from "./shell/ratings.js";
import { resignControl } from "./shell/resign.js";
import { keepInMyGames } from "./shell/my-games.js";
import { showRematch } from "./shell/rematch.js";
import { Presence } from "./shell/presence.js";
import { Receipts } from "./shell/receipts.js";
import { SeatControls, seatLine } from "./shell/seat-controls.js";
import { TakeBack } from "./shell/take-back.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").pop());
const storageKey = "hm-token-" + gameId;
const fragment = new URLSearchParams(location.hash.slice(1));
let token = fragment.get("token") || localStorage.getItem(storageKey) || "";

const S = { info: null, board: null, people: null, viewer: null, live: null, replayAt: null, decision: null, legalFor: -1 };
let log = null;
let announcer = null;
let clocks = null; // a tournament's or a table's move clocks (shell/clocks.js; off for a game without)
let presence = null; // players online/away/offline, and the socket's silence (shell/presence.js)
const NARROW = "(max-width: 700px)";
// The last move's places: the board's drawing after the previous move, what changed, and when.
const marks = { seq: null, drawn: null, keys: new Set(), at: 0 };
const zoom = { whole: false, decision: null };
let socket = null;
let retry = 500;
const commands = new SocketCommands();
let chat = null;
let takeBack = null; // a seat's Undo button and its one-click setting (shell/take-back.js)
let receipts = null; // what this browser was shown, and the log's receipts for it (shell/receipts.js)

/** The one function that sends a move: on the game's socket when it is open, else over HTTP. */
function sendCommand(command) {
  if (socket && socket.readyState === WebSocket.OPEN) return commands.send(socket, command);
  return sendOverHttp(gameId, token, command, commands.nextId("http-"));
}
const viewCache = new Map();

const context = () => ({ people: S.people, viewer: S.viewer, bots: S.info.bots, game: S.info.game, final: S.live && S.live.status === "finished" });

function notice(text, kind) {
  $("notice").replaceChildren(text ? el("div", { class: "notice " + kind }, text) : "");
}

function setConn(text) {
  $("conn").textContent = text;
}

/** What is shown: the live state, or the replayed one. */
function shown() {
  if (S.replayAt === null) return S.live;
  return viewCache.get(log.moves[S.replayAt].last) || S.live;
}

function render() {
  const state = shown();
  if (!state) return;
  const replaying = S.replayAt !== null;
  const finished = S.live.status === "finished";
  const deciding = S.decision && !replaying;
  const ctx = { ...context(), replaying, toAct: state.to_act, events: log.until(state.seq), chosen: deciding ? S.decision.chosenKeys() : [], offered: deciding ? S.decision.targets() : new Set() };
  let board;
  try {
    board = S.board.draw(state.view, ctx);
  } catch (e) {
    board = el("p", { class: "notice error" }, t("game.draw_failed", { error: String(e) }));
    console.error(e);
  }
  const focused = focusedKey($("board"));
  const noted = noteFocus($("decide"), $("board"));
  $("board").replaceChildren(board);
  if (board.tagName === "svg") {
    nameThePlaces(board);
    markMove(board, state, replaying);
  }
  highlight(replaying);
  fitForTouch(board, replaying);
  restoreFocus(board, focused);
  keepFocus(noted, $("decide"), $("board"));
  const badge = replaying ? t("game.badge_replay", { at: S.replayAt, last: log.moves.length - 1 }) : t(finished ? "game.finished" : "game.live");
  $("status").textContent = badge;
  $("status").className = "badge " + (replaying ? "replay" : finished ? "finished" : "live");
  $("players").replaceChildren(playersPanel(state.view, { ...ctx, outcome: state.outcome }, S.board));
  if (clocks) clocks.paint($("players"));
  if (presence) presence.paint($("players"));
  $("final").replaceChildren(state.outcome ? finalTable(state.view, state.outcome, ctx, S.board) : "");
  $("turn").replaceChildren(turnLine(state, replaying));
  document.body.dataset.seq = state.seq;
  document.body.dataset.status = S.live.status;
  document.body.dataset.move = replaying ? S.replayAt : log.moves.length - 1;
  renderReplay();
}

/** The places the last live move changed: marked until the next one, pulsing for a moment after it. */
function markMove(board, state, replaying) {
  if (replaying) return;
  const drawn = signature(board);
  if (marks.seq !== state.seq) {
    if (marks.drawn) (marks.keys = changedPlaces(board, marks.drawn, drawn)), (marks.at = performance.now());
    marks.seq = state.seq;
    marks.drawn = drawn;
  }
  const elapsed = performance.now() - marks.at;
  markLastMove(board, marks.keys, elapsed < 1600);
  // A redraw during the pulse continues it rather than starting it again.
  for (const node of board.querySelectorAll(".just-moved")) node.style.animationDelay = `-${Math.round(elapsed)}ms`;
}

/** On a phone the board zooms so that each place to tap is 44 px at least (unless the player asked for
 * the whole board); a new decision scrolls the board's panel to its first place. */
function fitForTouch(board, replaying) {
  const button = $("zoom-toggle");
  const offering = !replaying && S.decision && board.tagName === "svg" && window.matchMedia(NARROW).matches;
  const fresh = offering && zoom.decision !== S.decision;
  if (offering) zoom.decision = S.decision;
  const factor = offering ? zoomForTouch(board, $("board"), !zoom.whole, fresh) : zoomForTouch(board, $("board"), false, false);
  button.hidden = !offering || (factor === 1 && !zoom.whole);
  button.textContent = t(zoom.whole ? "game.zoom_in" : "game.zoom_out");
}

/** What the log says of an event, for the live region (others' moves read out). */
let spoken = [];
function speak(item) {
  if (item.seat === S.viewer) return;
  try {
    const seat = seatLine(item.event, S.people); // who plays a seat: said as the log says it
    const text = seat !== undefined ? seat : S.board.describe(item.event, { ...context(), seat: item.seat });
    if (text) spoken.push(el("span", {}, text).textContent); // a sentence may hold name chips
  } catch (e) {
    return;
  }
  if (spoken.length === 1) setTimeout(() => (announcer.say(spoken.join(" ")), (spoken = [])), 400);
}

function announceTurn() {
  const live = S.live;
  const mine = S.viewer !== null && live.status === "live" && live.to_act.includes(S.viewer);
  announcer.turn(mine, S.board.prompt ? S.board.prompt(live.view, context()) : "");
}

function turnLine(state, replaying) {
  if (state.outcome) return el("span", {}, t("game.over"));
  const acting = state.to_act.map((s) => S.people.who(s));
  const joined = acting.flatMap((node, i) => (i ? [", ", node] : [node]));
  const prompt = S.board.prompt ? S.board.prompt(state.view, context()) : "";
  if (!replaying && S.viewer !== null && state.to_act.includes(S.viewer)) return el("span", { class: "yours" }, prompt ? t("game.your_turn_prompt", { prompt }) : t("game.your_turn"));
  const who = acting.length ? joined : [t("people.nobody")];
  return el("span", {}, tNodes(acting.length === 1 ? "game.acts_one" : "game.acts_many", { who: el("span", {}, who) }), prompt ? ` (${prompt})` : "");
}

/** Mark the decision's next targets on the board; a click on one chooses it. */
function highlight(replaying) {
  const box = $("decide");
  const decision = S.decision;
  if (replaying || !decision) {
    box.replaceChildren(S.viewer !== null && S.live.status === "live" && !replaying ? el("p", { class: "waiting" }, t("game.waiting")) : "");
    return;
  }
  const targets = decision.targets();
  for (const node of $("board").querySelectorAll("[data-target]")) {
    const key = node.getAttribute("data-target");
    node.classList.toggle("legal", targets.has(key));
    node.classList.toggle("chosen", decision.chosenKeys().includes(key));
  }
  const labels = new Map(decision.options().next.filter((s) => s.num === undefined).map((s) => [s.key, s.label]));
  offerToKeyboard($("board"), targets, labels);
  const onBoard = new Set([...$("board").querySelectorAll("[data-target]")].map((n) => n.getAttribute("data-target")));
  box.replaceChildren(decision.controls(S.board.prompt ? S.board.prompt(S.live.view, context()) : t("game.your_move"), onBoard),
    factsBeside(S.board.facts ? S.board.facts(S.live.view, context()) : []));
}

async function refreshLegal() {
  const live = S.live;
  const mine = S.viewer !== null && live.status === "live" && live.to_act.includes(S.viewer);
  if (!mine) {
    S.decision = null;
    S.legalFor = -1;
    return;
  }
  if (S.legalFor === live.seq) return;
  S.legalFor = live.seq;
  const { status, body } = await api(`/api/games/${gameId}/legal`, { headers: bearer(token) });
  if (S.live.seq !== live.seq) return; // a newer state came meanwhile; its own fetch follows
  if (status !== 200) {
    notice(body ? body.message : t("game.no_legal"), "error");
    return;
  }
  const paths = body.map((command) => ({ command, steps: S.board.path(command, live.view, context()) }));
  S.decision = new Decision(paths, play, render);
  if (takeBack) S.decision.askFirst = (command) => takeBack.asks(command);
  render();
}

async function play(command) {
  const result = await sendCommand(command);
  if (!result.ok) {
    notice(result.message, "error");
    S.legalFor = -1;
    await refreshLegal();
  } else notice("", "");
}

function onFrame(frame) {
  if (frame.type === "chat") return chat && chat.take(frame);
  if (frame.type === "pong" || (frame.type === "result" && commands.settle(frame))) return;
  if (frame.type === "result") return;
  if (frame.hash) receipts.saw(frame);
  if (frame.type === "hello") S.viewer = frame.viewer;
  if ((frame.type === "hello" || frame.type === "resync") && S.live && frame.seq < S.live.seq) rewound(frame.seq);
  if (frame.type === "hello" && chat) chat.load(); // messages sent while the socket was closed
  if (frame.type === "event") {
    if (S.live && frame.seq <= S.live.seq) return;
    const item = { seq: frame.seq, seat: frame.seat, command_id: frame.command_id || `live-${frame.seq}`, event: frame.event };
    log.add(item);
    speak(item);
    if (clocks) clocks.event(item);
  }
  if (clocks) clocks.refresh(); // each event moves the clocks: the last move's time, who is to act
  const wasLive = S.live && S.live.status === "live";
  S.live = { seq: frame.seq, view: frame.view, to_act: frame.to_act, outcome: frame.outcome, status: frame.status };
  viewCache.set(frame.seq, S.live);
  if (frame.status === "finished" && wasLive !== false) return finish();
  S.decision = S.decision && S.legalFor === frame.seq ? S.decision : null;
  announceTurn();
  render();
  refreshLegal();
  if (takeBack) takeBack.refresh(S.live, S.viewer, frame.type === "event" ? frame.seat : undefined);
}

/** Redis lost its last seconds (docs/reliability.md): the events past ``seq`` no longer exist, so the log
 * and replay forget them and are read again from the store. */
function rewound(seq) {
  for (const cached of [...viewCache.keys()]) if (cached > seq) viewCache.delete(cached);
  loadEvents();
}

/** At the end everything hidden is shown: the log again, unredacted, and replay from the start. */
async function finish() {
  S.decision = null;
  if (takeBack) takeBack.box.remove(), takeBack.settingBox.remove(), (takeBack = null); // nothing is taken back once the game is over
  setConn(t("conn.game_over"));
  receipts.end();
  showRatings(gameId, $("ratings"));
  showRematch(gameId, $("rematch-box"));
  await loadEvents();
  render();
}

async function loadEvents() {
  const all = [];
  let from = 0;
  for (;;) {
    const { status, body } = await api(`/api/games/${gameId}/events?from=${from}&limit=5000`, { headers: bearer(token) });
    if (status !== 200) break;
    all.push(...body.events);
    if (!body.events.length || body.events[body.events.length - 1].seq >= body.last_seq) break;
    from = body.events[body.events.length - 1].seq;
  }
  log.reset(all);
  receipts.saw(...all);
  return all.length ? all[all.length - 1].seq : 0;
}

function connect(from) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const params = new URLSearchParams();
  if (token) params.set("token", token);
  if (from) params.set("from", String(from));
  socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}?${params}`);
  if (presence) presence.watch(socket);
  socket.onopen = () => {
    setConn(t(S.live && S.live.status === "finished" ? "conn.game_over" : "conn.connected"));
    retry = 500;
  };
  socket.onmessage = (message) => {
    if (presence) presence.heard(); // "connected" holds only while frames arrive
    onFrame(JSON.parse(message.data));
  };
  socket.onclose = (event) => {
    commands.dropAll();
    if (event.code >= 4400 && event.code < 4500) return setConn(t("conn.refused", { reason: event.reason }));
    if (S.live && S.live.status === "finished") return setConn(t("conn.game_over"));
    setConn(t("conn.reconnecting"));
    setTimeout(() => connect(S.live ? S.live.seq : from), retry);
    retry = Math.min(retry * 2, 8000);
  };
}

// --- replay by move -------------------------------------------------------------------------------------

async function replayTo(index) {
  const last = log.moves.length - 1;
  index = Math.max(0, Math.min(last, index));
  if (index === last) {
    S.replayAt = null;
    log.follow(null);
    return render();
  }
  const seq = log.moves[index].last;
  if (!viewCache.has(seq)) {
    const { status, body } = await api(`/api/games/${gameId}?at=${seq}`, { headers: bearer(token) });
    if (status !== 200) return;
    viewCache.set(seq, { seq, view: body.view, to_act: body.to_act, outcome: body.outcome, status: body.status });
  }
  S.replayAt = index;
  log.follow(index);
  render();
}

function renderReplay() {
  const last = Math.max(0, log.moves.length - 1);
  const at = S.replayAt === null ? last : S.replayAt;
  const slider = $("replay");
  slider.max = last;
  slider.value = at;
  $("replay-pos").textContent = S.replayAt === null ? t("replay.pos_now", { last }) : t("replay.pos", { at, last });
  $("replay-prev").disabled = at === 0;
  $("replay-next").disabled = at === last;
}

function current() {
  return S.replayAt === null ? log.moves.length - 1 : S.replayAt;
}

function setupReplay() {
  $("replay-prev").addEventListener("click", () => replayTo(current() - 1));
  $("replay-next").addEventListener("click", () => replayTo(current() + 1));
  $("replay-now").addEventListener("click", () => replayTo(log.moves.length - 1));
  let timer = null;
  $("replay").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => replayTo(Number($("replay").value)), 50);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft") replayTo(current() - 1);
    else if (event.key === "ArrowRight") replayTo(current() + 1);
    else return;
    event.preventDefault();
  });
  listenForKeys($("board"), (key) => S.decision && S.replayAt === null && S.decision.chooseTarget(key));
  $("zoom-toggle").addEventListener("click", () => ((zoom.whole = !zoom.whole), render()));
  $("board").addEventListener("click", (event) => {
    const target = event.target.closest("[data-target].legal");
    if (target && S.decision && S.replayAt === null) S.decision.chooseTarget(target.getAttribute("data-target"));
  });
}

async function start() {
  let { status, body } = await api(`/api/games/${gameId}`, { headers: bearer(token) });
  if (status === 403 || status === 401) {
    notice(t("game.bad_link"), "error");
    token = "";
    localStorage.removeItem(storageKey);
    ({ status, body } = await api(`/api/games/${gameId}`));
  }
  if (status === 404) return noSuchGame();
  if (status !== 200) return setConn(body ? body.message : t("conn.unavailable"));
  if (token) localStorage.setItem(storageKey, token);
  S.info = body;
  S.viewer = body.viewer;
  S.people = new People(body.names);
  S.board = (await import(`./boards/${body.game}.js`)).default;
  announcer = new Announcer(body.title, $("live"), S.viewer === null ? null : $("alerts"));
  clocks = new MoveClocks({ gameId, token, people: S.people, viewer: S.viewer, announcer, after: $("turn") });
  presence = new Presence({ gameId, token, viewer: S.viewer, setConn });
  $("title").textContent = body.title;
  if (body.tournament_id) $("title").after(el("a", { href: `/tournaments/${encodeURIComponent(body.tournament_id)}`, id: "tournament-link" }, t("game.tournament", { id: body.tournament_id })));
  $("seat-info").replaceChildren(S.viewer === null ? t("game.watching") : el("span", {}, tNodes("game.you_play", { who: S.people.who(S.viewer) })),
    token ? " " : "", token ? el("a", { href: "#", id: "leave", onclick: leave }, t("game.watch_instead")) : ""); // the space outside the link: not underlined
  if (S.viewer !== null && !body.tournament && body.status !== "finished") $("seat-info").append(" ", resignControl({ gameId, token }));
  const seats = new SeatControls({ gameId, token, viewer: S.viewer, people: S.people, announcer }); // take back, vote
  clocks.onClock = (clock) => seats.take(clock);
  $("decide").before(seats.box); // in the action bar: on a phone the players' panel is far below the board
  if (S.viewer !== null && body.status !== "finished") {
    const box = el("div", { class: "take-back", id: "take-back-box" });
    $("decide").after(box);
    const settingBox = el("div", { class: "take-back-setting", id: "take-back-setting" });
    $("seat-info").after(settingBox); // with the seat's line, not in the action bar
    takeBack = new TakeBack({ gameId, token, send: sendCommand, box, settingBox });
  }
  if (S.viewer !== null) keepInMyGames(gameId, token);
  log = new GameLog($("log"), S.board, context);
  chat = new Chat($("chat"), gameId, S.viewer, token);
  chat.start();
  receipts = new Receipts($("audit"), gameId, body.seed_commitment);
  receipts.start();
  const last = await loadEvents();
  S.live = { seq: body.last_seq, view: body.view, to_act: body.to_act, outcome: body.outcome, status: body.status };
  viewCache.set(S.live.seq, S.live);
  setupReplay();
  announceTurn();
  render();
  if (clocks) clocks.refresh();
  if (body.status === "finished") {
    showRatings(gameId, $("ratings"));
    showRematch(gameId, $("rematch-box"));
  }
  refreshLegal();
  if (takeBack) takeBack.refresh(S.live, S.viewer);
  connect(Math.min(last, body.last_seq));
}

/** A link to a game that does not exist (mistyped, or from another server): say so, plainly. */
function noSuchGame() {
  document.title = t("missing.tab");
  setConn("");
  $("title").textContent = t("missing.title");
  $("status").hidden = true;
  document.querySelector("main").replaceChildren(el("div", { class: "panel missing", id: "no-such-game" },
    el("h1", {}, t("missing.title")),
    el("p", {}, tNodes("missing.text", { game: el("code", {}, gameId) })),
    el("p", {}, el("a", { href: "/" }, t("missing.link")))));
}

function leave(event) {
  event.preventDefault();
  localStorage.removeItem(storageKey);
  location.href = location.pathname;
}

start();
