// The board's places, the same for every game (each board marks a place with data-target, a piece that
// moves with data-mark): a name for each, the keyboard on the places a player may choose, the places the
// last move changed, and on a phone a zoom that makes every place to tap at least 44 × 44 px.

export const TAP_PX = 44;
const MAX_ZOOM = 6;
const MOST_MARKED = 8;
const PLACES = "[data-target], [data-mark]";

const keyOf = (node) => (node.hasAttribute("data-target") ? node.getAttribute("data-target") : "mark:" + node.getAttribute("data-mark"));
const titleNode = (node) => [...node.children].find((c) => c.tagName === "title") || null;

/** Names for the places: a place is an image named by its hover text (its <title>), a place holding
 * other places a group (its places stay reachable inside it); the board itself is a named group, not
 * one image whose name would be all its text. */
export function nameThePlaces(board) {
  board.setAttribute("role", "group");
  for (const node of board.querySelectorAll("[data-target]")) {
    if (titleNode(node)) node.setAttribute("role", node.querySelector("[data-target]") ? "group" : "img");
  }
}

/** The places one may choose become buttons for the keyboard: Tab reaches them, Enter or Space
 * chooses; `labels` maps a key to what choosing it does ("Board the jade boat (3 pesos)"). */
export function offerToKeyboard(board, targets, labels) {
  for (const node of board.querySelectorAll("[data-target]")) {
    const key = node.getAttribute("data-target");
    if (!targets.has(key)) {
      node.removeAttribute("tabindex");
      continue;
    }
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    // The name is the hover text, led by what choosing does; it stays a <title>, not an aria-label, so
    // that the name also holds what the place shows (speech input users say what they see).
    const label = labels.get(key) || "";
    const title = titleNode(node);
    if (title && label && !title.textContent.startsWith(label)) title.textContent = `${label} — ${title.textContent}`;
    else if (!title && !node.querySelector("text")) node.setAttribute("aria-label", label);
  }
}

// Whether the player is using the keyboard (the focus then follows the decision from step to step;
// a mouse player's page must not jump to the next place by itself).
let byKeyboard = false;

/** The keyboard's way to choose: Enter or Space on a focused place acts as a click on it. */
export function listenForKeys(root, choose) {
  document.addEventListener("keydown", () => (byKeyboard = true), true);
  document.addEventListener("pointerdown", () => (byKeyboard = false), true);
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target.closest && event.target.closest("[data-target].legal");
    if (!target) return;
    event.preventDefault();
    choose(target.getAttribute("data-target"));
  });
}

/** After a redraw the focus goes back to the same place (or the first place offered) when it was on
 * the board: a keyboard player is not sent back to the top of the page with every step. */
export function restoreFocus(board, key) {
  if (key === null || !byKeyboard) return;
  const same = [...board.querySelectorAll("[data-target][tabindex]")].find((n) => n.getAttribute("data-target") === key);
  const next = same || board.querySelector("[data-target][tabindex]");
  if (next) next.focus();
}

export function focusedKey(root) {
  const active = document.activeElement;
  return active && root.contains(active) && active.hasAttribute("data-target") ? active.getAttribute("data-target") : null;
}

/** Each place's drawing, to find the places a move changed. */
export function signature(board) {
  const marks = new Map();
  for (const node of board.querySelectorAll(PLACES)) marks.set(keyOf(node), node.innerHTML);
  return marks;
}

/** The places drawn differently after a move (and pieces newly drawn: a boat setting out), the
 * innermost only: a city whose site got a warehouse marks the site, not the whole city. A move after
 * which much is drawn anew (a new phase's places, a new voyage) marks nothing: it would mark all. */
export function changedPlaces(board, before, after) {
  const moved = ([key, html]) => (before.has(key) ? before.get(key) !== html : key.startsWith("mark:"));
  const changed = new Set([...after].filter(moved).map(([key]) => key));
  const nodes = [...board.querySelectorAll(PLACES)].filter((n) => changed.has(keyOf(n)));
  const innermost = nodes.filter((n) => !nodes.some((m) => m !== n && n.contains(m))).map(keyOf);
  return new Set(innermost.length <= MOST_MARKED ? innermost : []);
}

/** Mark the last move's places; `fresh`: the move just happened, so they also pulse once. */
export function markLastMove(board, keys, fresh) {
  for (const node of board.querySelectorAll(PLACES)) {
    if (!keys.has(keyOf(node))) continue;
    node.classList.add("last-move");
    if (fresh) node.classList.add("just-moved");
  }
}

/** On a phone, zoom the board until its smallest place to tap is 44 px each way; the board's panel then
 * scrolls sideways (the page does not), and a new decision scrolls to its first place. Returns the zoom. */
export function zoomForTouch(board, scroller, wanted, fresh) {
  board.style.width = "";
  board.style.maxWidth = "";
  scroller.classList.remove("zoomed");
  const offered = [...board.querySelectorAll("[data-target].legal")];
  if (!wanted || !offered.length) return 1;
  const boxes = offered.map((n) => n.getBoundingClientRect());
  const smallest = Math.min(...boxes.map((b) => Math.min(b.width, b.height)));
  if (smallest >= TAP_PX || smallest <= 0) return 1;
  const zoom = Math.min(MAX_ZOOM, (TAP_PX + 1) / smallest);
  board.style.width = `${zoom * 100}%`;
  board.style.maxWidth = "none";
  scroller.classList.add("zoomed");
  if (fresh) {
    const first = offered[0].getBoundingClientRect();
    const frame = scroller.getBoundingClientRect();
    scroller.scrollLeft += first.left + first.width / 2 - (frame.left + frame.width / 2);
  }
  return zoom;
}
