// A game's page: the shell around the game's board module (boards/<game>.js). Live over the WebSocket;
// a seat holder plays by clicking highlighted targets on the board; every game can be replayed by move.
// This module starts the page; the shell's parts share its state (shell/page.js): the socket
// (shell/socket.js), the live game and its log (shell/live.js), the viewer's turn (shell/turn.js), the
// drawing (shell/view.js) and the replay (shell/replay.js).
import { el, People } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api, bearer } from "./net.js";
import { Chat } from "./chat.js";
import { Announcer } from "./shell/announce.js";
import { MoveClocks } from "./shell/clocks.js";
import { GameLog } from "./shell/log.js";
import { showRatings } from "./shell/ratings.js";
import { resignControl } from "./shell/resign.js";
import { keepInMyGames } from "./shell/my-games.js";
import { showRematch } from "./shell/rematch.js";
import { Presence } from "./shell/presence.js";
import { Receipts } from "./shell/receipts.js";
import { SeatControls } from "./shell/seat-controls.js";
import { TakeBack } from "./shell/take-back.js";
import { $, S, context, gameId, notice, setConn, storageKey } from "./shell/page.js";
import { loadEvents, onFrame } from "./shell/live.js";
import { setupReplay } from "./shell/replay.js";
import { connect, sendCommand } from "./shell/socket.js";
import { announceTurn, refreshLegal } from "./shell/turn.js";
import { listenToBoard, render } from "./shell/view.js";

async function start() {
  let { status, body } = await api(`/api/games/${gameId}`, { headers: bearer(S.token) });
  if (status === 403 || status === 401) {
    notice(t("game.bad_link"), "error");
    S.token = "";
    localStorage.removeItem(storageKey);
    ({ status, body } = await api(`/api/games/${gameId}`));
  }
  if (status === 404) return noSuchGame();
  if (status !== 200) return setConn(body ? body.message : t("conn.unavailable"));
  if (S.token) localStorage.setItem(storageKey, S.token);
  S.info = body;
  S.viewer = body.viewer;
  S.people = new People(body.names);
  S.board = (await import(`./boards/${body.game}.js`)).default;
  startParts(body);
  const last = await loadEvents();
  S.live = { seq: body.last_seq, view: body.view, to_act: body.to_act, outcome: body.outcome, status: body.status };
  S.viewCache.set(S.live.seq, S.live);
  setupReplay(render);
  listenToBoard();
  announceTurn();
  render();
  if (S.clocks) S.clocks.refresh();
  if (body.status === "finished") {
    showRatings(gameId, $("ratings"));
    showRematch(gameId, $("rematch-box"));
  }
  refreshLegal();
  if (S.takeBack) S.takeBack.refresh(S.live, S.viewer);
  connect(Math.min(last, body.last_seq), onFrame);
}

/** The page's parts around the board, for the game `body` (GET /api/games/{id}) as this viewer sees it. */
function startParts(body) {
  const { token, viewer } = S;
  S.announcer = new Announcer(body.title, $("live"), viewer === null ? null : $("alerts"));
  S.clocks = new MoveClocks({ gameId, token, people: S.people, viewer, announcer: S.announcer, after: $("turn") });
  S.presence = new Presence({ gameId, token, viewer, setConn });
  $("title").textContent = body.title;
  if (body.tournament_id) $("title").after(el("a", { href: `/tournaments/${encodeURIComponent(body.tournament_id)}`, id: "tournament-link" }, t("game.tournament", { id: body.tournament_id })));
  $("seat-info").replaceChildren(viewer === null ? t("game.watching") : el("span", {}, tNodes("game.you_play", { who: S.people.who(viewer) })),
    token ? " " : "", token ? el("a", { href: "#", id: "leave", onclick: leave }, t("game.watch_instead")) : ""); // the space outside the link: not underlined
  if (viewer !== null && !body.tournament && body.status !== "finished") $("seat-info").append(" ", resignControl({ gameId, token }));
  const seats = new SeatControls({ gameId, token, viewer, people: S.people, announcer: S.announcer }); // take back, vote
  S.clocks.onClock = (clock) => seats.take(clock);
  $("decide").before(seats.box); // in the action bar: on a phone the players' panel is far below the board
  if (viewer !== null && body.status !== "finished") {
    const box = el("div", { class: "take-back", id: "take-back-box" });
    $("decide").after(box);
    const settingBox = el("div", { class: "take-back-setting", id: "take-back-setting" });
    $("seat-info").after(settingBox); // with the seat's line, not in the action bar
    S.takeBack = new TakeBack({ gameId, token, send: sendCommand, box, settingBox });
  }
  if (viewer !== null) keepInMyGames(gameId, token);
  S.log = new GameLog($("log"), S.board, context);
  S.chat = new Chat($("chat"), gameId, viewer, token);
  S.chat.start();
  S.receipts = new Receipts($("audit"), gameId, body.seed_commitment);
  S.receipts.start();
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
