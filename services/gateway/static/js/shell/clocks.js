// Move clocks at the table (a tournament game with `move_limit_s` or `total_limit_s`): one clock per seat
// in the players' panel and the viewer's own beside the action bar, counting down for the seat(s) to
// act, turning into a warning (colour, a ⚠ and words, said once in the live region) when under 10 s or
// 20 % of the limit. The numbers come from `GET /api/games/{id}/clock`, fetched after each event (the
// frames carry no clock): the limits, when the last move was made, each seat's used time and the
// server's now, by which a browser whose own clock is wrong corrects itself.
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";

const WARN_MS = 10_000;
const WARN_PART = 0.2;
const TICK_MS = 250; // the shown second changes within a quarter second of the true one

/** "1:05"; a turn-based table's hours and days as "5 h 03 min" and "2 d 4 h". */
export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  if (minutes >= 24 * 60) return `${Math.floor(minutes / 1440)} d ${Math.floor((minutes % 1440) / 60)} h`;
  if (minutes >= 60) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

/** What the clock does when a seat's time is up: a tournament's default move, a table's stand-in bot. */
function upWords(c) {
  return t(c.on_timeout === "bot" ? "clock.up_bot" : c.on_timeout === "vote" ? "clock.up_vote" : "clock.up_default");
}

/** Whether `left` ms of a `limit` is close enough to the end to warn. */
export function warns(left, limit) {
  return left < WARN_MS || left < WARN_PART * limit;
}

/** The log's line for the first event of a move the clock played (command ids `timeout-…`), or null. */
export function timeoutLine(item, people) {
  if (!String(item.command_id || "").startsWith("timeout-") || item.seat === null || item.seat === undefined) return null;
  return el("div", { class: "line timeout" }, people.who(item.seat), " ", t("clock.ran_out_log"));
}

export class MoveClocks {
  /** `ctx`: {gameId, token, people, viewer, announcer, after} — `after`: the element the viewer's own
   * clock is shown after (the action bar's turn line). */
  constructor(ctx) {
    Object.assign(this, ctx);
    this.clock = null; // the last answer of /clock
    this.offset = 0; // server time minus this browser's time, in ms
    this.fetching = false;
    this.again = false;
    this.off = false; // the game has no clock: nothing more is fetched
    this.nodes = new Map(); // seat -> its clock in the players' panel
    this.warned = null; // the move (seq) whose warning was said
    this.lastCommand = null;
    this.mine = el("div", { id: "my-clock", class: "my-clock", hidden: true });
    if (this.viewer !== null) this.after.after(this.mine);
    setInterval(() => this.tick(), TICK_MS);
  }

  /** After each frame: fetch the clock again (one request at a time; a frame meanwhile asks once more). */
  async refresh() {
    if (this.off) return;
    if (this.fetching) return void (this.again = true);
    this.fetching = true;
    try {
      const sent = Date.now();
      const { status, body } = await api(`/api/games/${encodeURIComponent(this.gameId)}/clock`, { headers: bearer(this.token) });
      const received = Date.now();
      if (status === 200 && (!this.clock || body.seq >= this.clock.seq)) this.take(body, (sent + received) / 2);
    } catch (e) {
      // offline for a moment: the clock keeps counting from what it had, and the next frame fetches again
    } finally {
      this.fetching = false;
    }
    if (this.again) (this.again = false), this.refresh();
  }

  take(clock, at) {
    this.off = clock.move_limit_ms === null && clock.total_limit_ms === null;
    this.clock = clock;
    this.offset = clock.now_ms - at; // the server's now was read about halfway through the request
    this.tick();
    if (this.onClock) this.onClock(clock); // the seat controls (shell/seat-controls.js): take back, vote
  }

  /** An event frame: a move the clock played is said in the live region. */
  event(item) {
    const first = item.command_id !== this.lastCommand;
    this.lastCommand = item.command_id;
    if (!first || !timeoutLine(item, this.people)) return;
    const text = item.seat === this.viewer ? t("clock.you_ran_out") : t("clock.ran_out", { name: this.people.name(item.seat) });
    this.announcer.also(text);
  }

  /** What `seat`'s clock shows now: {left, limit, acting}, or null without a clock. */
  state(seat) {
    const c = this.clock;
    if (!c || this.off || !c.running) return null; // over, or seen late by a spectator: no clock to show
    const acting = c.running && c.to_act.includes(seat);
    const elapsed = acting ? Math.max(0, Date.now() + this.offset - c.last_move_ms) : 0;
    const used = c.seats[seat] ? c.seats[seat].used_ms : 0;
    const limits = [];
    if (c.move_limit_ms !== null) limits.push({ left: c.move_limit_ms - elapsed, limit: c.move_limit_ms });
    // a table's real-time bank grows by its increment with each move (bank_ms); a tournament's is the total
    const bank = c.seats[seat] && c.seats[seat].bank_ms != null ? c.seats[seat].bank_ms : c.total_limit_ms;
    if (c.total_limit_ms !== null) limits.push({ left: bank - used - elapsed, limit: c.total_limit_ms });
    const nearest = limits.reduce((a, b) => (b.left < a.left ? b : a));
    const timedOut = c.seats[seat] && c.seats[seat].timeouts > 0;
    const forfeited = (c.on_timeout === "forfeit" || c.on_timeout === "drop") && timedOut;
    const away = (c.on_timeout === "bot" || c.on_timeout === "vote") && c.seats[seat] && c.seats[seat].away;
    return { ...nearest, acting, forfeited, away, warning: acting && !away && warns(nearest.left, nearest.limit) };
  }

  /** After the players' panel is drawn again: a clock in each seat's row. */
  paint(panel) {
    this.nodes.clear();
    for (const row of panel.querySelectorAll("li.player[data-seat]")) {
      const node = el("span", { class: "clock", "data-clock-seat": row.dataset.seat, hidden: true });
      row.querySelector(".money") ? row.querySelector(".money").before(node) : row.append(node);
      this.nodes.set(Number(row.dataset.seat), node);
    }
    this.tick();
  }

  tick() {
    for (const [seat, node] of this.nodes) this.show(node, this.state(seat), false);
    if (this.viewer !== null) this.show(this.mine, this.state(this.viewer), true);
  }

  show(node, s, mine) {
    node.hidden = !s;
    if (!s) return;
    const text = clockText(s.left);
    node.className = (mine ? "my-clock" : "clock") + (s.acting ? " running" : "") + (s.warning ? " warning" : "");
    node.dataset.leftMs = String(Math.round(s.left));
    node.title = t(s.limit === (this.clock.move_limit_ms ?? -1) ? "clock.left_move" : "clock.left_game");
    node.textContent = mine ? this.ownWords(s, text) : s.away ? t("clock.bot_plays") : s.forfeited ? t("clock.forfeited", { time: text }) : s.warning ? t("clock.warn_left", { time: text }) : text;
    if (mine && s.warning) this.warn(s);
  }

  ownWords(s, text) {
    if (s.away) return t("clock.own_away");
    if (!s.acting) return t(s.forfeited ? "clock.own_forfeited" : "clock.own", { time: text });
    if (s.left <= 0) return t("clock.own_up", { then: upWords(this.clock) });
    if (s.warning) return t("clock.own_hurry", { time: text, then: upWords(this.clock) });
    return t("clock.own_acting", { time: text });
  }

  /** The warning is said once per move. */
  warn(s) {
    if (this.warned === this.clock.seq || s.left <= 0) return;
    this.warned = this.clock.seq;
    this.announcer.also(t("clock.hurry_said", { seconds: Math.ceil(s.left / 1000), then: upWords(this.clock) }));
  }
}
