// DOM and SVG helpers shared by the shell and the boards (ES module, no build step).
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children, isSvg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.setAttribute("class", value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("div", {class: "x"}, "text", child). */
export function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children, false);
}

/** Put `nodes` in `box` unless it already shows exactly them: a list refreshed every few seconds must not
 * rebuild unchanged rows, which would drop a reader's text selection, a keyboard user's focus, and a
 * click landing on a row in the middle of its replacement. */
export function replaceIfChanged(box, nodes) {
  const html = nodes.map((n) => (n instanceof Element ? n.outerHTML : String(n))).join("");
  if (box.innerHTML !== html) box.replaceChildren(...nodes);
}

/** An SVG element, same signature; a `title` child gives the hover text. */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children, true);
}

/** Hover and tap text of an SVG shape (Chromium shows <title> as a tooltip). */
export function tip(text) {
  return svg("title", {}, text);
}

// Each colour but yellow takes white text at 4.5:1 or more (WCAG AA); on yellow the text is dark.
export const COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#d4ac0d", "#7d3c98", "#5d6d7e"];
export const COLOUR_NAMES = ["red", "blue", "green", "yellow", "purple", "grey"];

/** The names and colours of a game's players, and how a player is printed. */
export class People {
  constructor(names) {
    this.names = names;
  }
  name(seat) {
    return seat === null || seat === undefined ? t("people.nobody") : this.names[seat] || t("people.player", { n: seat + 1 });
  }
  colour(seat) {
    return COLOURS[seat % COLOURS.length];
  }
  /** A player's name in their colour, for text. */
  who(seat) {
    if (seat === null || seat === undefined) return el("span", {}, t("people.nobody"));
    return el("span", { class: "who p" + seat }, el("i", { class: "chip p" + seat }), this.name(seat));
  }
  /** The class for text drawn on this player's colour: dark on yellow, white on the rest. */
  onColour(seat) {
    return seat % COLOURS.length === 3 ? "on-light" : "";
  }
  /** The first letter of a name, for small pieces on a board. */
  initial(seat) {
    // A letter two players share (Anna and Alba, or "Player 1" and "Player 2") says nobody: the seat's
    // number instead.
    const first = (s) => this.name(s).trim().charAt(0).toUpperCase();
    const letter = first(seat);
    const shared = this.names.some((_, other) => other !== seat && first(other) === letter);
    return letter && !shared ? letter : String(seat + 1);
  }
}

export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many || one + "s"}`;
}
