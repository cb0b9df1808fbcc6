// The end screen's rematch (issue 44.10): a table game's signed-in players see "Rematch"; the first to click
// opens a private table with the same game, seats, options and bots, and every other player's end screen
// then offers to join that table (asked every few seconds while the page stays on the end screen).
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api } from "../net.js";

const EVERY_MS = 3000;

const tableLink = (id) => `/?table=${encodeURIComponent(id)}`;

function draw(box, gameId, rematch) {
  if (!rematch.yours) return box.replaceChildren();
  if (rematch.table_id) {
    return box.replaceChildren(el("div", { class: "notice rematch" }, t("rematch.open"), " ",
      el("button", { type: "button", class: "primary", id: "rematch-join", onclick: () => { location.href = tableLink(rematch.table_id); } }, t("rematch.go"))));
  }
  const propose = async () => {
    const { status, body } = await api(`/api/games/${gameId}/rematch`, { method: "POST" });
    if (status === 200 && body.table_id) location.href = tableLink(body.table_id);
    else box.append(el("div", { class: "notice error" }, body ? body.message : t("error.refused", { status })));
  };
  box.replaceChildren(el("div", { class: "rematch" },
    el("button", { type: "button", class: "primary", id: "rematch", onclick: propose }, t("rematch.button")),
    " ", t("rematch.explain")));
}

/** Offers the rematch of the finished game `gameId` in `box`, and keeps the offer current. */
export async function showRematch(gameId, box) {
  const ask = async () => {
    const { status, body } = await api(`/api/games/${gameId}/rematch`);
    if (status === 200) draw(box, gameId, body);
    return status === 200 && body.yours && !body.table_id;
  };
  if (await ask()) {
    const timer = setInterval(async () => { if (!(await ask())) clearInterval(timer); }, EVERY_MS);
  }
}
