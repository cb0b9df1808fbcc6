// Who plays a seat (issue 44), from the game's own log (domain/seat_control.py): the log's lines for the seat
// events (a resignation, the clock's hand-over to a bot or drop, a seat taken back, a vote to end), and the
// controls of the seated viewer: "Take my seat back" while the clock's stand-in bot plays their seat, and
// the vote to end the game when another player's time ran out at a table opened with "the others vote".
// The state comes with the clock's answer (GET /api/games/{id}/clock: bot_plays, vote), fetched after each
// event; the controls post to /take-back and /vote, whose refusals are shown as the server says them.
import { el } from "../dom.js";
import { t } from "../i18n.js";
import { api, bearer } from "../net.js";

const LINES = {
  SeatResigned: (e, who) => t("seat.resigned_log", { name: who(e.seat) }),
  SeatHandedToBot: (e, who) => t("seat.handed_log", { name: who(e.seat) }),
  SeatDropped: (e, who) => t("seat.dropped_log", { name: who(e.seat) }),
  SeatTakenBack: (e, who) => t("seat.taken_back_log", { name: who(e.seat) }),
  EndVoteOpened: (e, who) => t("seat.vote_opened_log", { name: who(e.seat) }),
  EndVoteCast: (e, who) => t(e.end ? "seat.voted_end_log" : "seat.voted_on_log", { name: who(e.seat) }),
  EndVoteClosed: () => t("seat.vote_closed_log"),
  GameEndedByVote: () => t("seat.ended_log"),
};

/** The log's line for a seat event, or undefined for any other event (the board describes those). */
export function seatLine(event, people) {
  const line = event && LINES[event.type];
  return line ? line(event, (seat) => people.name(seat)) : undefined;
}

export class SeatControls {
  /** `ctx`: {gameId, token, viewer, people, announcer}. */
  constructor(ctx) {
    Object.assign(this, ctx);
    this.box = el("div", { class: "seat-controls", id: "seat-controls" });
    this.shown = ""; // what is drawn: drawn again only when it changes (a button keeps its focus)
    this.said = null; // the last answer of the server, shown until the next change
  }

  /** The clock's answer after an event: draw what the viewer may do now. */
  take(clock) {
    if (this.viewer === null || !clock) return;
    const mine = (clock.seats || [])[this.viewer];
    const vote = clock.vote;
    const voter = vote && vote.voters.includes(this.viewer);
    const voted = voter && Object.hasOwn(vote.votes, String(this.viewer));
    const key = JSON.stringify([mine && mine.bot_plays, vote && vote.seat, voter, voted]);
    if (key === this.shown) return;
    this.shown = key;
    const parts = [];
    if (mine && mine.bot_plays) parts.push(this.takeBack());
    if (voter && !voted) parts.push(this.ballot(vote.seat));
    else if (voted) parts.push(el("p", { class: "notice", id: "vote-waiting" }, t(vote.votes[String(this.viewer)] ? "seat.you_voted_end" : "seat.you_voted_on")));
    this.box.replaceChildren(...parts, ...(this.said ? [this.said] : []));
  }

  takeBack() {
    return el("p", { class: "seat-bot", id: "seat-bot" }, t("seat.bot_plays_yours"), " ",
      el("button", { type: "button", id: "take-seat-back", onclick: () => this.post("take-back", null, t("seat.taken_back")) }, t("seat.take_back")));
  }

  ballot(seat) {
    const name = this.people.name(seat);
    return el("div", { class: "vote", id: "end-vote", role: "group", "aria-label": t("seat.vote_label") },
      el("p", {}, t("seat.vote_ask", { name })), " ",
      el("button", { type: "button", id: "vote-end", class: "danger", onclick: () => this.post("vote", { end: true }, t("seat.you_voted_end")) }, t("seat.vote_end")), " ",
      el("button", { type: "button", id: "vote-on", onclick: () => this.post("vote", { end: false }, t("seat.you_voted_on")) }, t("seat.vote_on")));
  }

  async post(verb, body, done) {
    const headers = { ...bearer(this.token), ...(body ? { "Content-Type": "application/json" } : {}) };
    const { status, body: answer } = await api(`/api/games/${encodeURIComponent(this.gameId)}/${verb}`, { method: "POST", headers, body: body ? JSON.stringify(body) : undefined });
    const text = status === 200 ? done : answer ? answer.message : t("error.refused", { status });
    this.said = el("p", { class: "notice", role: "status", id: "seat-said" }, text);
    this.box.append(this.said);
    if (this.announcer) this.announcer.also(text);
  }
}
