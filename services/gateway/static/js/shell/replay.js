// Replay by move: ◀ / ▶, the slider and the arrow keys step through the game one move (one command and all
// it caused) at a time; a state not seen live is fetched once (`GET /api/games/{id}?at=seq`) and kept.
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";
import { $, S, gameId } from "./page.js";

let draw = () => {}; // the page's render (shell/view.js), given by setupReplay

async function replayTo(index) {
  const last = S.log.moves.length - 1;
  index = Math.max(0, Math.min(last, index));
  if (index === last) {
    S.replayAt = null;
    S.log.follow(null);
    return draw();
  }
  const seq = S.log.moves[index].last;
  if (!S.viewCache.has(seq)) {
    const { status, body } = await api(`/api/games/${gameId}?at=${seq}`, { headers: bearer(S.token) });
    if (status !== 200) return;
    S.viewCache.set(seq, { seq, view: body.view, to_act: body.to_act, outcome: body.outcome, status: body.status });
  }
  S.replayAt = index;
  S.log.follow(index);
  draw();
}

/** The replay panel's slider, position and buttons, after each drawing of the page. */
export function renderReplay() {
  const last = Math.max(0, S.log.moves.length - 1);
  const at = S.replayAt === null ? last : S.replayAt;
  const slider = $("replay");
  slider.max = last;
  slider.value = at;
  $("replay-pos").textContent = S.replayAt === null ? t("replay.pos_now", { last }) : t("replay.pos", { at, last });
  $("replay-prev").disabled = at === 0;
  $("replay-next").disabled = at === last;
}

function current() {
  return S.replayAt === null ? S.log.moves.length - 1 : S.replayAt;
}

/** The replay's controls and keys; `render` draws the page again. */
export function setupReplay(render) {
  draw = render;
  $("replay-prev").addEventListener("click", () => replayTo(current() - 1));
  $("replay-next").addEventListener("click", () => replayTo(current() + 1));
  $("replay-now").addEventListener("click", () => replayTo(S.log.moves.length - 1));
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
}
