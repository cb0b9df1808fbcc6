// The viewer's turn: said when it begins (shell/announce.js), the legal commands fetched once a position
// and offered as a decision (shell/decide.js), and the chosen move sent, its refusal shown.
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";
import { Decision } from "./decide.js";
import { S, boardPrompt, context, gameId, notice } from "./page.js";
import { sendCommand } from "./socket.js";
import { standIn } from "./stand-in.js";
import { render } from "./view.js";

/** Whether the viewer is to act in the live game: their seat is, and no stand-in bot holds it. */
function mine() {
  const live = S.live;
  return S.viewer !== null && live.status === "live" && live.to_act.includes(S.viewer) && !standIn();
}

export function announceTurn() {
  S.announcer.turn(mine(), boardPrompt(S.live.view));
}

export async function refreshLegal() {
  const live = S.live;
  if (!mine()) {
    S.decision = null;
    S.legalFor = -1;
    return;
  }
  if (S.legalFor === live.seq) return;
  S.legalFor = live.seq;
  const { status, body } = await api(`/api/games/${gameId}/legal`, { headers: bearer(S.token) });
  if (S.live.seq !== live.seq) return; // a newer state came meanwhile; its own fetch follows
  if (status !== 200) {
    notice(body ? body.message : t("game.no_legal"), "error");
    return;
  }
  const paths = body.map((command) => ({ command, steps: S.board.path(command, live.view, context()) }));
  S.decision = new Decision(paths, play, render);
  if (S.takeBack) S.decision.askFirst = (command) => S.takeBack.asks(command);
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
