// Taking back one's moves of the turn (issue 44). While the seat may (it moved, nobody else has acted since
// and nothing hidden or random came out), an "Undo my move" button posts {"type": "TakeBack"}: an event in
// the log like any move, never a deletion (domain/take_back.py). Apart from it (a seat's preference, not part of the
// decision: on a phone the sticky action bar was over half the screen), the player's setting "Ask before
// one-click moves that cannot be undone", kept in this browser (localStorage): with it on, a move the board
// plays on one click asks for Confirm first when the server lists it as final (GET …/undo?final=1:
// it reveals something, rolls or draws, or the game takes nothing back, as a tournament's).
import { el } from "../dom.js";
import { t, tNodes } from "../i18n.js";
import { api, bearer } from "../net.js";

const ASK = "hm-ask-one-click";

function asking() {
  try {
    return localStorage.getItem(ASK) === "1";
  } catch (e) {
    return false; // storage refused: the setting cannot be kept, so it is off
  }
}

export class TakeBack {
  /** `send(command)`: the page's one way to send a move; `box`: where the button lives; `settingBox`: where the
   * setting does (`box` if not given). */
  constructor({ gameId, token, send, box, settingBox = null }) {
    this.gameId = gameId;
    this.token = token;
    this.send = send;
    this.box = box;
    this.settingBox = settingBox;
    this.may = false;
    this.allowed = true;
    this.final = null; // the seat's final moves at `finalFor` (JSON texts), null while unknown
    this.finalFor = -1;
    this.asked = -1;
    this.busy = false;
    this.draw();
  }

  /** Whether a one-click `command` should ask for Confirm first (unknown counts as final: the safe side). */
  asks(command) {
    if (!asking()) return false;
    return this.final === null || this.final.has(JSON.stringify(command));
  }

  /** After each frame: what the server says now, when it may have changed (`lastSeat`: the seat of the
   * frame's event; another seat's event closes this seat's window, and needs no question). */
  refresh(live, viewer, lastSeat) {
    this.last = [live, viewer, lastSeat];
    if (live.status !== "live") return this.set(false, null, live.seq);
    const mine = live.to_act.includes(viewer);
    if (lastSeat !== undefined && lastSeat !== null && lastSeat !== viewer && !(mine && asking())) return this.set(false, null, live.seq);
    if (this.asked === live.seq) return;
    this.asked = live.seq;
    // A move's events arrive as a burst of frames: one question for the last of them.
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ask(live.seq, mine && asking()), 120);
  }

  async ask(seq, withFinal) {
    const query = withFinal ? "?final=1" : "";
    const { status, body } = await api(`/api/games/${encodeURIComponent(this.gameId)}/undo${query}`, { headers: bearer(this.token) });
    if (status !== 200 || body.seq < seq) return;
    this.allowed = body.allowed;
    this.set(body.may, withFinal ? new Set(body.final.map((c) => JSON.stringify(c))) : null, body.seq);
  }

  set(may, final, seq) {
    const focused = document.activeElement && document.activeElement.id === "take-back";
    this.may = may;
    this.final = final;
    this.finalFor = seq;
    this.busy = false;
    this.draw();
    if (focused && !may) document.getElementById("decide").focus(); // the button went: focus stays on the decision
  }

  async takeBack() {
    if (this.busy) return;
    this.busy = true;
    this.draw();
    const result = await this.send({ type: "TakeBack" });
    if (result.ok) return this.set(false, null, this.finalFor); // taken back: nothing more until the next move
    if (!result.ok) {
      this.busy = false;
      this.draw();
      this.parts.button.append(el("span", { class: "notice error", role: "alert", id: "take-back-said" }, result.message));
    }
  }

  /** The button (while the seat may take back) and the setting, made once so that redraws keep its focus. */
  draw() {
    if (!this.parts) {
      const setting = el("label", { class: "ask-one-click" },
        el("input", { type: "checkbox", id: "ask-one-click", checked: asking(), onchange: (e) => this.keep(e.target.checked) }),
        " ", t("takeback.ask_setting"));
      this.parts = { button: el("span", { class: "take-back-button" }), note: el("span", { class: "take-back-off" }) };
      this.box.replaceChildren(this.parts.button, this.parts.note, ...(this.settingBox ? [] : [setting]));
      if (this.settingBox) this.settingBox.replaceChildren(setting);
    }
    this.parts.button.replaceChildren(this.may
      ? el("button", { type: "button", id: "take-back", disabled: this.busy, onclick: () => this.takeBack() }, t("takeback.button"))
      : "");
    this.parts.note.textContent = this.allowed ? "" : t("takeback.off");
  }

  keep(on) {
    try {
      if (on) localStorage.setItem(ASK, "1");
      else localStorage.removeItem(ASK);
    } catch (e) {
      return; // not kept: the box shows what the next frame will say
    }
    this.asked = -1; // asked again, with the final moves if on
    this.final = null;
    if (this.last) this.refresh(...this.last);
  }
}

/** The log's line for the engine's own events: a take-back said, its marker left out (undefined: not one). */
export function takeBackLine(event, people) {
  if (event.type === "MovesBegan") return null;
  if (event.type === "MovesTakenBack") return tNodes("takeback.log", { who: people.who(event.seat) });
  return undefined;
}
