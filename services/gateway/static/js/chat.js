// A game's table chat: the players' channel and the spectators' (marked), written over HTTP, pushed as
// `chat` frames on the game's socket. A mute hides an author for this viewer only: kept with the account
// when one is signed in (every device), else in this browser.
import { el } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { api, bearer } from "./net.js";
import { whoAmI } from "./account.js";

const MUTED = "hm-muted";

function mutedHere() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED) || "[]"));
  } catch (e) {
    return new Set();
  }
}

function keepHere(set) {
  localStorage.setItem(MUTED, JSON.stringify([...set]));
}

const mutedPath = (author) => `/api/me/muted/${encodeURIComponent(author)}`;

export class Chat {
  /** `box`: the panel; `viewer`: the page's seat (null when watching); `token`: a seat link's token. */
  constructor(box, gameId, viewer, token) {
    this.box = box;
    this.gameId = gameId;
    this.viewer = viewer;
    this.token = token;
    this.seen = new Set();
    this.list = el("div", { class: "chat-list", id: "chat-list", role: "log", "aria-label": t("chat.list") });
    this.message = el("div", { id: "chat-message" });
    this.mutedBox = el("details", { id: "chat-muted", hidden: true });
    this.muted = mutedHere();
    this.account = null;
    this.mutesKnown = Promise.resolve();
  }

  async start() {
    const player = this.viewer !== null;
    this.mutesKnown = this.knowMutes();
    await this.mutesKnown;
    const signedIn = player || this.account !== null;
    const input = el("input", { id: "chat-text", maxlength: 300, placeholder: t(player ? "chat.to_table" : "chat.to_spectators"), "aria-label": t("chat.label"), autocomplete: "off" });
    const form = el("form", { id: "chat-form" }, input, el("button", { type: "submit" }, t("chat.send")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send(input.value, player ? "players" : "spectators").then((ok) => { if (ok) input.value = ""; });
    });
    this.box.replaceChildren(el("h2", {}, t("chat.title")), this.list, signedIn ? form : el("p", { class: "waiting" }, tNodes("chat.sign_in", { link: el("a", { href: "/" }, t("account.sign_in")) })), this.message, this.mutedBox);
    this.drawMuted();
    await this.load();
  }

  /** Who is signed in, and the account's mutes. Lines are listed only once these are known (the socket may
   * open first), and any taken meanwhile are hidden now: a muted author never shows on another device. */
  async knowMutes() {
    this.account = await whoAmI();
    if (this.account !== null) await this.loadMuted();
    this.hideMuted();
  }

  /** The last messages this viewer may read (each shown once): on opening, and whenever the socket opens. */
  async load() {
    await this.mutesKnown;
    const { status, body } = await api(`/api/games/${encodeURIComponent(this.gameId)}/chat`, { headers: bearer(this.token) });
    if (status === 200) body.messages.forEach((m) => this.take(m));
  }

  async send(text, channel) {
    if (!text.trim()) return false;
    const { status, body } = await api(`/api/games/${encodeURIComponent(this.gameId)}/chat`, {
      method: "POST",
      headers: { ...bearer(this.token), "Content-Type": "application/json" },
      body: JSON.stringify({ text, channel }),
    });
    this.message.replaceChildren(status === 201 ? "" : el("div", { class: "notice error" }, body ? body.message : t("error.refused", { status })));
    // One's own line at once: a spectator's in a tournament game still being played is pushed to nobody
    // (players could read it as anyone) and is listed for all once the game is over.
    if (status === 201) this.take(body);
    return status === 201;
  }

  /** A `chat` frame (or a listed message): shown once, unless its author is muted here. */
  take(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const author = message.author;
    const line = el("div", { class: "chat-line " + message.channel, "data-author": author, hidden: this.muted.has(author) },
      el("b", { class: message.seat === null ? "" : "who p" + message.seat }, author), message.channel === "spectators" ? el("span", { class: "tag" }, t("chat.spectator")) : "", ": ",
      el("span", { class: "chat-text" }, message.text), " ",
      this.ownLine(message) ? null : el("button", { type: "button", class: "mute small-button", title: t("chat.mute_title", { author }), onclick: () => this.mute(author) }, t("chat.mute")));
    this.list.append(line);
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** One's own message has nothing to mute. */
  ownLine(message) {
    return this.viewer !== null ? message.seat === this.viewer : message.seat === null && message.author === this.account;
  }

  /** The account's mutes, with this browser's: those made before signing in move to the account (and
   * leave the browser, so that the next person to sign in here does not inherit them). */
  async loadMuted() {
    const { status, body } = await api("/api/me/muted");
    if (status !== 200) return;
    const here = [...this.muted].filter((author) => !body.muted.includes(author));
    body.muted.forEach((author) => this.muted.add(author));
    const moved = await Promise.all(here.map((author) => api(mutedPath(author), { method: "PUT" })));
    if (here.length && moved.every(({ status: put }) => put === 204)) keepHere(new Set());
  }

  mute(author) {
    this.muted.add(author);
    this.remember(author, "PUT");
  }

  unmute(author) {
    this.muted.delete(author);
    this.remember(author, "DELETE");
  }

  remember(author, method) {
    if (this.account === null) {
      keepHere(this.muted);
    } else {
      api(mutedPath(author), { method }).then(({ status, body }) => {
        if (status !== 204) this.message.replaceChildren(el("div", { class: "notice error" }, body ? body.message : t("error.refused", { status })));
      });
    }
    this.hideMuted();
    this.drawMuted();
  }

  hideMuted() {
    for (const line of this.list.querySelectorAll(".chat-line")) line.hidden = this.muted.has(line.dataset.author);
  }

  /** Who is muted, each with a way back. */
  drawMuted() {
    const names = [...this.muted].sort();
    this.mutedBox.hidden = names.length === 0;
    this.mutedBox.replaceChildren(el("summary", {}, t("chat.muted", { n: names.length })),
      ...names.map((author) => el("div", { class: "muted-author", "data-author": author }, author, " ",
        el("button", { type: "button", class: "unmute small-button", title: t("chat.unmute_title", { author }), onclick: () => this.unmute(author) }, t("chat.unmute")))));
  }
}
