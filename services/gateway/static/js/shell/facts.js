// The decision's key numbers beside the choice (issue 44.6). On a phone the board is zoomed so that its
// places are 44 px to tap, and its right-hand side (East India Companies' share values, El Capitán's card
// prices, Manila's crew) lies off the screen: the board module names those numbers here, as words in the
// action bar, which the style shows on a phone only (the whole board fits a wide screen).
import { el } from "../dom.js";
import { t } from "../i18n.js";

/** `lines`: [[label, text], ...] from the board's `facts(view, ctx)`; "" when it has none. */
export function factsBeside(lines) {
  if (!lines || !lines.length) return "";
  return el("dl", { class: "facts", "aria-label": t("facts.label") },
    lines.flatMap(([label, text]) => [el("dt", {}, label), el("dd", {}, text)]));
}
