// Following the live game: each frame of the socket becomes the live state, a line of the log and words in
// the live region; the whole log is read from the store at the start, after Redis lost its last seconds,
// and at the end (when everything hidden is shown).
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";
import { showRatings } from "./ratings.js";
import { showRematch } from "./rematch.js";
import { seatLine } from "./seat-controls.js";
import { $, S, context, gameId, setConn } from "./page.js";
import { standIn } from "./stand-in.js";
import { announceTurn, refreshLegal } from "./turn.js";
import { render } from "./view.js";

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
  if (spoken.length === 1) setTimeout(() => (S.announcer.say(spoken.join(" ")), (spoken = [])), 400);
}

/** A frame of the game's socket (its moves' results are the socket's own: shell/socket.js). */
export function onFrame(frame) {
  if (frame.type === "chat") return S.chat && S.chat.take(frame);
  if (frame.hash) S.receipts.saw(frame);
  if (frame.type === "hello") S.viewer = frame.viewer;
  if ((frame.type === "hello" || frame.type === "resync") && S.live && frame.seq < S.live.seq) rewound(frame.seq);
  if (frame.type === "hello" && S.chat) S.chat.load(); // messages sent while the socket was closed
  if (frame.type === "event") {
    if (S.live && frame.seq <= S.live.seq) return;
    const item = { seq: frame.seq, seat: frame.seat, command_id: frame.command_id || `live-${frame.seq}`, event: frame.event };
    S.log.add(item);
    speak(item);
    if (S.clocks) S.clocks.event(item);
  }
  if (S.clocks) S.clocks.refresh(); // each event moves the clocks: the last move's time, who is to act
  const wasLive = S.live && S.live.status === "live";
  S.live = { seq: frame.seq, view: frame.view, to_act: frame.to_act, outcome: frame.outcome, status: frame.status };
  S.viewCache.set(frame.seq, S.live);
  if (frame.status === "finished" && wasLive !== false) return finish();
  S.decision = S.decision && S.legalFor === frame.seq ? S.decision : null;
  announceTurn();
  render();
  refreshLegal();
  if (S.takeBack && standIn()) S.takeBack.set(false, null, S.live.seq); // the stand-in's moves are not the player's to undo
  else if (S.takeBack) S.takeBack.refresh(S.live, S.viewer, frame.type === "event" ? frame.seat : undefined);
}

/** Redis lost its last seconds (docs/reliability.md): the events past ``seq`` no longer exist, so the log
 * and replay forget them and are read again from the store. */
function rewound(seq) {
  for (const cached of [...S.viewCache.keys()]) if (cached > seq) S.viewCache.delete(cached);
  loadEvents();
}

/** At the end everything hidden is shown: the log again, unredacted, and replay from the start. */
async function finish() {
  S.decision = null;
  if (S.takeBack) S.takeBack.box.remove(), S.takeBack.settingBox.remove(), (S.takeBack = null); // nothing is taken back once the game is over
  setConn(t("conn.game_over"));
  S.receipts.end();
  showRatings(gameId, $("ratings"));
  showRematch(gameId, $("rematch-box"));
  await loadEvents();
  render();
}

/** The game's whole log from the store, a page of 5,000 events at a time; the last seq read. */
export async function loadEvents() {
  const all = [];
  let from = 0;
  for (;;) {
    const { status, body } = await api(`/api/games/${gameId}/events?from=${from}&limit=5000`, { headers: bearer(S.token) });
    if (status !== 200) break;
    all.push(...body.events);
    if (!body.events.length || body.events[body.events.length - 1].seq >= body.last_seq) break;
    from = body.events[body.events.length - 1].seq;
  }
  S.log.reset(all);
  S.receipts.saw(...all);
  return all.length ? all[all.length - 1].seq : 0;
}
