// Resigning a table's game (issue 44): a "Resign" button beside the seat line that asks once more in the
// page (no browser dialog: the question, its consequence and both answers are buttons a screen reader and
// the keyboard reach), then POST /api/games/{id}/resign. A bot plays the seat to the end; the game counts
// as a loss. The server's refusal (a game no table made, a game over) is shown as it says it.
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";

/** The resign control of a seated viewer: its element. */
export function resignControl({ gameId, token }) {
  const box = el("span", { class: "resign", id: "resign-box" });
  const say = (text) => box.replaceChildren(el("span", { class: "notice", role: "status", id: "resign-said" }, text));
  const draw = () => box.replaceChildren(el("button", { type: "button", id: "resign", onclick: ask }, t("resign.button")));
  function ask() {
    box.replaceChildren(
      el("span", { role: "alert" }, t("resign.ask"), " "),
      el("button", { type: "button", id: "resign-yes", class: "danger", onclick: go }, t("resign.yes")), " ",
      el("button", { type: "button", id: "resign-no", onclick: () => (draw(), box.querySelector("#resign").focus()) }, t("resign.no")),
    );
    box.querySelector("#resign-no").focus(); // the safe answer first
  }
  async function go() {
    const { status, body } = await api(`/api/games/${encodeURIComponent(gameId)}/resign`, { method: "POST", headers: bearer(token) });
    say(status === 200 ? t("resign.done") : body ? body.message : t("error.refused", { status }));
  }
  draw();
  return box;
}
