// Keyboard focus through a move of several parts (issue 44.7). Each step redraws the decision's controls
// and the board, so the element that had the focus is gone and the browser drops it on the page: a
// keyboard player saw no ring and needed ten Tabs back to the choice. Here the focus is noted before the
// redraw and put back on the decision after it.

// Only for a keyboard player: a mouse player's page must not move by itself.
let byKeyboard = false;
document.addEventListener("keydown", (e) => (byKeyboard = e.key === "Tab" || e.key === "Enter" || e.key === " " || byKeyboard), true);
document.addEventListener("pointerdown", () => (byKeyboard = false), true);

const shown = (n) => n && n.getClientRects().length > 0;

const CONTROLS = "#confirm:enabled, .number button:enabled, .choices button.choice:enabled, .choices select:enabled, #undo:enabled";

/** Where the focus is before a redraw: {area: "decide" | "board", key, id}, or null when it is elsewhere
 * (the chat, the log: a redraw must never pull the focus from there). */
export function noteFocus(decide, board) {
  const active = document.activeElement;
  if (!active || active === document.body) return null;
  const area = decide.contains(active) ? "decide" : board.contains(active) ? "board" : null;
  if (!area) return null;
  return { area, key: active.getAttribute("data-key") || active.getAttribute("data-target"), id: active.id || null, aria: active.getAttribute("aria-label") };
}

/** After a redraw, if the focus was on the decision and has been lost, give it to the same control when
 * it is still there, else to the next thing to decide: a control, a place on the board, the words' list,
 * and at the least the decision's box itself (a move sent, waiting for the others). */
export function keepFocus(noted, decide, board) {
  if (!noted || !byKeyboard) return;
  const active = document.activeElement;
  if (active && active !== document.body && active !== decide && (decide.contains(active) || board.contains(active))) return;
  const same = [...decide.querySelectorAll("button:enabled, select:enabled")].filter(shown).find((n) =>
    (noted.id && n.id === noted.id) || (noted.key && n.getAttribute("data-key") === noted.key && n.getAttribute("aria-label") === noted.aria));
  const place = board.querySelector(".target.legal[tabindex='0']");
  const candidates = noted.area === "board"
    ? [same, place, ...decide.querySelectorAll(CONTROLS), decide.querySelector("details.in-words summary")]
    : [same, ...decide.querySelectorAll(CONTROLS), place, decide.querySelector("details.in-words summary")];
  const next = candidates.find(shown);
  if (next) return next.focus();
  if (active === decide) return; // already there: refocusing would scroll a reader back up at every move
  decide.setAttribute("tabindex", "-1"); // focusable by script only: no extra Tab stop
  decide.focus({ preventScroll: true });
}
