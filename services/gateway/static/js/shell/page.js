// The game page's one state, shared by the shell's modules (js/game.js starts them): the game, the viewer,
// the live state and the replayed one, the decision on offer, and the page's parts once they are built.
import { el } from "../dom.js";

export const $ = (id) => document.getElementById(id);
export const gameId = decodeURIComponent(location.pathname.split("/").pop());
export const storageKey = "hm-token-" + gameId;
const fragment = new URLSearchParams(location.hash.slice(1));

export const S = {
  token: fragment.get("token") || localStorage.getItem(storageKey) || "",
  info: null,
  board: null,
  people: null,
  viewer: null,
  live: null,
  replayAt: null,
  decision: null,
  legalFor: -1,
  viewCache: new Map(), // seq -> {seq, view, to_act, outcome, status}: the live states seen and replayed ones
  log: null,
  announcer: null,
  clocks: null, // a tournament's or a table's move clocks (shell/clocks.js; off for a game without)
  presence: null, // players online/away/offline, and the socket's silence (shell/presence.js)
  chat: null,
  takeBack: null, // a seat's Undo button and its one-click setting (shell/take-back.js)
  receipts: null, // what this browser was shown, and the log's receipts for it (shell/receipts.js)
};

export const context = () => ({ people: S.people, viewer: S.viewer, bots: S.info.bots, game: S.info.game, final: S.live && S.live.status === "finished" });

export function notice(text, kind) {
  $("notice").replaceChildren(text ? el("div", { class: "notice " + kind }, text) : "");
}

export function setConn(text) {
  $("conn").textContent = text;
  $("conn").title = text; // on a phone a long line is cut short in the header (style.css)
}

/** What is shown: the live state, or the replayed one. */
export function shown() {
  if (S.replayAt === null) return S.live;
  return S.viewCache.get(S.log.moves[S.replayAt].last) || S.live;
}

/** The board's own prompt for the decision on offer ("" for a board without). */
export function boardPrompt(view) {
  return S.board.prompt ? S.board.prompt(view, context()) : "";
}
