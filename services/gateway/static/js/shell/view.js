// Drawing the game page from its state (shell/page.js): the board with the last move's marks and the
// decision's targets, the turn line, the action bar, the players' panel, the final table, the replay's place.
import { el } from "../dom.js";
import { t, tNodes } from "../i18n.js";
import { factsBeside } from "./facts.js";
import { keepFocus, noteFocus } from "./keep-focus.js";
import { changedPlaces, focusedKey, listenForKeys, markLastMove, nameThePlaces, offerToKeyboard, restoreFocus, signature, zoomForTouch } from "./places.js";
import { finalTable, playersPanel } from "./players.js";
import { renderReplay } from "./replay.js";
import { standIn } from "./stand-in.js";
import { $, S, boardPrompt, context, shown } from "./page.js";

const NARROW = "(max-width: 700px)";
// The last move's places: the board's drawing after the previous move, what changed, and when.
const marks = { seq: null, drawn: null, keys: new Set(), at: 0 };
const zoom = { whole: false, decision: null };

export function render() {
  const state = shown();
  if (!state) return;
  const replaying = S.replayAt !== null;
  const finished = S.live.status === "finished";
  const deciding = S.decision && !replaying;
  const ctx = { ...context(), replaying, standIn: !replaying && standIn(), toAct: state.to_act, events: S.log.until(state.seq), chosen: deciding ? S.decision.chosenKeys() : [], offered: deciding ? S.decision.targets() : new Set() };
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
  const badge = replaying ? t("game.badge_replay", { at: S.replayAt, last: S.log.moves.length - 1 }) : t(finished ? "game.finished" : "game.live");
  $("status").textContent = badge;
  $("status").className = "badge " + (replaying ? "replay" : finished ? "finished" : "live");
  $("players").replaceChildren(playersPanel(state.view, { ...ctx, outcome: state.outcome }, S.board));
  if (S.clocks) S.clocks.paint($("players"));
  if (S.presence) S.presence.paint($("players"));
  $("final").replaceChildren(state.outcome ? finalTable(state.view, state.outcome, ctx, S.board) : "");
  $("turn").replaceChildren(turnLine(state, replaying));
  document.body.dataset.seq = state.seq;
  document.body.dataset.status = S.live.status;
  document.body.dataset.move = replaying ? S.replayAt : S.log.moves.length - 1;
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

/** The board's clicks and keys choose the decision's targets; the phone's zoom switch. */
export function listenToBoard() {
  listenForKeys($("board"), (key) => S.decision && S.replayAt === null && S.decision.chooseTarget(key));
  $("zoom-toggle").addEventListener("click", () => ((zoom.whole = !zoom.whole), render()));
  $("board").addEventListener("click", (event) => {
    const target = event.target.closest("[data-target].legal");
    if (target && S.decision && S.replayAt === null) S.decision.chooseTarget(target.getAttribute("data-target"));
  });
}

function turnLine(state, replaying) {
  if (state.outcome) return el("span", {}, t("game.over"));
  const acting = state.to_act.map((s) => S.people.who(s));
  const joined = acting.flatMap((node, i) => (i ? [", ", node] : [node]));
  const prompt = boardPrompt(state.view);
  const held = !replaying && standIn();
  if (held && state.to_act.includes(S.viewer)) return el("span", { class: "stand-in", id: "stand-in-turn" }, t(held === "resigned" ? "game.stand_in_resigned" : "game.stand_in_turn"));
  if (!replaying && S.viewer !== null && state.to_act.includes(S.viewer)) return el("span", { class: "yours" }, prompt ? t("game.your_turn_prompt", { prompt }) : t("game.your_turn"));
  const who = acting.length ? joined : [t("people.nobody")];
  return el("span", {}, tNodes(acting.length === 1 ? "game.acts_one" : "game.acts_many", { who: el("span", {}, who) }), prompt ? ` (${prompt})` : "");
}

/** Mark the decision's next targets on the board; a click on one chooses it. */
function highlight(replaying) {
  const box = $("decide");
  const decision = S.decision;
  if (replaying || !decision) {
    const waiting = S.viewer !== null && S.live.status === "live" && !replaying && !standIn(); // else the turn line says who plays
    box.replaceChildren(waiting ? el("p", { class: "waiting" }, t("game.waiting")) : "");
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
