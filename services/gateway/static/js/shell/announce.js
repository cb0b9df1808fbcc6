// Telling a player that it is their turn, and what the others did: the tab's title, an optional tone
// (off unless the player turns it on; kept in localStorage), a browser notification while the tab is
// hidden (permission asked once, by a button, never on page load) and a polite live region that a
// screen reader reads out.
import { el, svg } from "../dom.js";
import { t } from "../i18n.js";

const SOUND_KEY = "hm-sound";
// On a phone the header's buttons show these icons and keep their words for screen readers (style.css):
// the header then takes two rows, not three. A speaker with waves (on) or a cross (off), and a bell.
const SPEAKER = "M3 9v6h4l5 4V5L7 9H3z";
const ICONS = {
  on: [SPEAKER, "M15 8.5a5 5 0 0 1 0 7M17.5 6a8.5 8.5 0 0 1 0 12"],
  off: [SPEAKER, "M15.5 9.5l5 5M20.5 9.5l-5 5"],
  bell: ["M12 21.5a2 2 0 0 0 2-2h-4a2 2 0 0 0 2 2zM18 16v-5a6 6 0 0 0-4.5-5.8V4.5a1.5 1.5 0 0 0-3 0v.7A6 6 0 0 0 6 11v5l-2 2v1h16v-1z"],
};

/** A header button's face: its icon (drawn on a phone only) and its words. */
function face(icon, words) {
  const [body, ...strokes] = ICONS[icon];
  return [
    svg("svg", { class: "icon", viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true", focusable: "false" },
      svg("path", { d: body, fill: "currentColor" }),
      ...strokes.map((d) => svg("path", { d, fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" }))),
    el("span", { class: "words" }, words),
  ];
}

export class Announcer {
  /** `title`: the game's name ("Manila"); `region`: the aria-live element; `controls`: where the
   * sound toggle and the notification button go (null for a spectator, who has no turn). */
  constructor(title, region, controls) {
    this.title = title;
    this.region = region;
    this.yourTurn = false;
    this.audio = null;
    this.sound = localStorage.getItem(SOUND_KEY) === "on";
    this.soundButton = el("button", { id: "sound", class: "small-button", onclick: () => this.toggleSound() });
    this.notifyButton = el("button", { id: "notify", class: "small-button", onclick: () => this.askNotifications() }, face("bell", t("announce.notify")));
    if (controls) controls.replaceChildren(this.soundButton, this.notifyButton);
    this.showButtons();
    this.setTitle();
  }

  showButtons() {
    this.soundButton.replaceChildren(...face(this.sound ? "on" : "off", t(this.sound ? "announce.sound_on" : "announce.sound_off")));
    this.soundButton.setAttribute("aria-pressed", String(this.sound));
    this.soundButton.title = t("announce.sound_title");
    this.notifyButton.title = t("announce.notify_title");
    // Only offered while the browser can still ask: once granted or refused, asking again does nothing.
    this.notifyButton.hidden = !("Notification" in window) || Notification.permission !== "default";
  }

  toggleSound() {
    this.sound = !this.sound;
    localStorage.setItem(SOUND_KEY, this.sound ? "on" : "off");
    this.showButtons();
    if (this.sound) this.tone(); // a click is the user gesture that lets the audio context start
  }

  async askNotifications() {
    await Notification.requestPermission();
    this.showButtons();
  }

  setTitle() {
    document.title = this.yourTurn ? t("announce.tab_turn", { game: this.title }) : `${this.title} — Harbormaster`;
  }

  /** Called on every live state: announces the moment the turn becomes this player's, once. */
  turn(mine, prompt) {
    const began = mine && !this.yourTurn;
    this.yourTurn = mine;
    this.setTitle();
    if (!began) return;
    this.say(prompt ? t("announce.turn_prompt", { prompt }) : t("announce.turn"));
    if (this.sound) this.tone();
    if (document.hidden && "Notification" in window && Notification.permission === "granted") {
      const note = new Notification(t("announce.note", { game: this.title }), { body: prompt || "", tag: "hm-turn" });
      note.onclick = () => window.focus();
    }
  }

  /** Said after whatever the region holds, not instead of it (a clock's warning as the turn begins). */
  also(text) {
    if (!text) return;
    this.region.append(el("p", {}, text));
    while (this.region.childElementCount > 3) this.region.firstElementChild.remove();
  }

  /** Another player's move in words, for the live region: added after the last few, so that an event
   * arriving just after "Your turn" does not wipe it out before it is read. */
  say(text) {
    // A fresh text node each time: screen readers announce additions to a polite region.
    this.also(text);
  }

  /** Two short rising sine notes made with WebAudio (no sound file to download). */
  tone() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    this.audio = this.audio || new Context();
    const now = this.audio.currentTime;
    [660, 880].forEach((frequency, i) => {
      const osc = this.audio.createOscillator();
      const gain = this.audio.createGain();
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.15);
      osc.connect(gain).connect(this.audio.destination);
      osc.start(now + i * 0.16);
      osc.stop(now + i * 0.16 + 0.16);
    });
  }
}
