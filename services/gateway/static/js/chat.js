// A game's table chat: the players' channel and the spectators' (marked), written over HTTP, pushed as
// `chat` frames on the game's socket. A mute hides an author for this viewer (kept in this browser).
import { el } from "./dom.js";
import { api, bearer } from "./net.js";
import { whoAmI } from "./account.js";

const MUTED = "hm-muted";

function muted() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED) || "[]"));
  } catch (e) {
    return new Set();
  }
}

export class Chat {
  /** `box`: the panel; `viewer`: the page's seat (null when watching); `token`: a seat link's token. */
  constructor(box, gameId, viewer, token) {
    this.box = box;
    this.gameId = gameId;
    this.viewer = viewer;
    this.token = token;
    this.seen = new Set();
    this.list = el("div", { class: "chat-list", id: "chat-list", role: "log", "aria-label": "table chat" });
    this.message = el("div", { id: "chat-message" });
  }

  async start() {
    const player = this.viewer !== null;
    const signedIn = player || (await whoAmI()) !== null;
    const input = el("input", { id: "chat-text", maxlength: 300, placeholder: player ? "to the table" : "to the other spectators", "aria-label": "chat message", autocomplete: "off" });
    const form = el("form", { id: "chat-form" }, input, el("button", { type: "submit" }, "Send"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send(input.value, player ? "players" : "spectators").then((ok) => { if (ok) input.value = ""; });
    });
    this.box.replaceChildren(el("h2", {}, "Chat"), this.list, signedIn ? form : el("p", { class: "waiting" }, el("a", { href: "/" }, "Sign in"), " to chat."), this.message);
    await this.load();
  }

  /** The last messages this viewer may read (each shown once): on opening, and whenever the socket opens. */
  async load() {
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
    this.message.replaceChildren(status === 201 ? "" : el("div", { class: "notice error" }, body ? body.message : `refused (${status})`));
    return status === 201;
  }

  /** A `chat` frame (or a listed message): shown once, unless its author is muted here. */
  take(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    const author = message.author;
    const line = el("div", { class: "chat-line " + message.channel, "data-author": author, hidden: muted().has(author) },
      el("b", { class: message.seat === null ? "" : "who p" + message.seat }, author), message.channel === "spectators" ? el("span", { class: "tag" }, "spectator") : "", ": ",
      el("span", { class: "chat-text" }, message.text), " ",
      el("button", { type: "button", class: "mute small-button", title: `hide ${author}'s messages`, onclick: () => this.mute(author) }, "mute"));
    this.list.append(line);
    this.list.scrollTop = this.list.scrollHeight;
  }

  mute(author) {
    const set = muted();
    set.add(author);
    localStorage.setItem(MUTED, JSON.stringify([...set]));
    for (const line of this.list.querySelectorAll(".chat-line")) if (line.dataset.author === author) line.hidden = true;
  }
}
