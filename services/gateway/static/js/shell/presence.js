// Presence that tells the truth (issue 44): each player's dot and word in the players' panel (online, away,
// offline; "bot" for a bot's seat and a resigned one) from their pages' beats (`/api/games/{id}/presence`, services/gateway/api/presence_http.py), and
// the header's "connected" only while frames arrive: the page pings its socket every BEAT_MS, and a socket
// with no frame at all (pong, event, anything) for SILENT_MS is said to be offline and closed, so that the
// page's reconnecting starts, instead of a header saying "connected" over a dead line.
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";

const BEAT_MS = 5000;
const SILENT_MS = 12_000;
const WORDS = { online: t("presence.online"), away: t("presence.away"), offline: t("presence.offline"), bot: t("presence.bot") };
const TITLES = { online: t("presence.online_title"), away: t("presence.away_title"), offline: t("presence.offline_title"), bot: t("presence.bot_title") };

export class Presence {
  /** `ctx`: {gameId, token, viewer, setConn} — `setConn`: the page's header line. */
  constructor(ctx) {
    Object.assign(this, ctx);
    this.seats = new Map(); // seat -> "online" | "away" | "offline"
    this.socket = null;
    this.heardAt = Date.now();
    this.stale = false;
    setInterval(() => this.beat(), BEAT_MS);
    document.addEventListener("visibilitychange", () => this.beat());
    window.addEventListener("offline", () => this.silent(t("presence.lost_network")));
    this.beat();
  }

  /** A new socket: pinged every beat, watched for silence. */
  watch(socket) {
    this.socket = socket;
    this.heardAt = Date.now();
    this.stale = false;
  }

  /** Any frame from the server. */
  heard() {
    this.heardAt = Date.now();
    this.stale = false;
  }

  silent(text) {
    this.stale = true;
    this.setConn(text);
    if (this.socket && this.socket.readyState <= 1) this.socket.close(); // the page's onclose reconnects
  }

  async beat() {
    const open = this.socket && this.socket.readyState === 1;
    if (open) {
      if (Date.now() - this.heardAt > SILENT_MS) this.silent(t("presence.silent", { seconds: SILENT_MS / 1000 }));
      else this.socket.send(JSON.stringify({ type: "ping" }));
    }
    try {
      if (this.viewer !== null) {
        const state = document.hidden ? "away" : "online";
        await api(`/api/games/${encodeURIComponent(this.gameId)}/presence`, { method: "PUT", headers: { "Content-Type": "application/json", ...bearer(this.token) }, body: JSON.stringify({ state }) });
      }
      const { status, body } = await api(`/api/games/${encodeURIComponent(this.gameId)}/presence`, { headers: bearer(this.token) });
      if (status === 200) for (const s of body.seats) this.seats.set(s.seat, s.presence);
    } catch (e) {
      // no network: the socket's silence says so; the dots keep what they had until the next answer
    }
    this.paint();
  }

  /** A dot and a word in each seat's row of the players' panel (drawn again after each frame). */
  paint(panel = document.getElementById("players")) {
    if (!panel) return;
    for (const row of panel.querySelectorAll("li.player[data-seat]")) {
      const seat = Number(row.dataset.seat);
      const said = this.seats.get(seat);
      if (!said) continue;
      let node = row.querySelector(".presence");
      if (!node) {
        node = el("span", { class: "presence" });
        row.querySelector(".money") ? row.querySelector(".money").before(node) : row.append(node);
      }
      node.className = `presence ${said}`;
      node.dataset.presence = said;
      node.textContent = `● ${WORDS[said]}`;
      node.title = TITLES[said];
    }
  }
}
