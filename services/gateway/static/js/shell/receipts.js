// Receipts (issue 41): what this browser was shown of a game, kept so that the player can prove it later.
// Each event's (seq, hash) as the frames and the event list carried them, the game's seed commitment from the
// first move, and the log's receipts (a signed checkpoint and the inclusion proof of the game's newest logged
// head), asked for a few seconds after new events and at the game's end: never one request a move. Kept in
// IndexedDB (one object store, keyed by game id: it survives reloads), shown in the "Fair play" disclosure,
// and saved by *Download my receipts* as the file `harbormaster verify game.jsonl --receipts FILE` reads.
import { el } from "../dom.js";
import { t, tNodes } from "../i18n.js";
import { api } from "../net.js";

const FORMAT = "harbormaster-receipts/1";
const DB = "harbormaster-receipts";
const STORE = "games";
const EVERY_MS = 4000; // the fewest milliseconds between two receipt requests while events come
const FIRST_MS = 1500; // the log takes new heads every second or so: asking at once would miss this one
const RETRY_MS = [2000, 4000, 8000, 15000, 30000]; // not yet logged (204) or unreachable: quietly, later
const SAVE_MS = 800; // IndexedDB is written at most this often
const KEEP = 64; // receipts kept a game: the first and the newest (each later head binds every event before it)

const short = (hex) => (hex && hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex || "");

function openStore() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function stored(db, mode, act) {
  return new Promise((resolve, reject) => {
    const request = act(db.transaction(STORE, mode).objectStore(STORE));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** A receipt's leaf (base64 of its canonical JSON), read; null when it is not one. */
function leafOf(receipt) {
  try {
    return JSON.parse(atob(receipt.leaf));
  } catch (e) {
    return null;
  }
}

/** A signed checkpoint's origin and size: its first two lines. */
function checkpointOf(note) {
  const [origin, size] = String(note || "").split("\n");
  return { origin, size: Number(size) };
}

export class Receipts {
  /** `box`: the panel (a <details>); `seedCommitment`: as `GET /api/games/{id}` showed it. */
  constructor(box, gameId, seedCommitment) {
    this.box = box;
    this.gameId = gameId;
    this.seed = seedCommitment || "";
    // seq -> what the page was shown of it, in order: its seal while the game was live, its hash from the end
    // on (and, after Redis lost its last seconds, the store's new event at that seq: both are kept, as shown)
    this.seen = new Map();
    this.receipts = [];
    this.log = null;
    this.warnings = [];
    this.state = "waiting"; // what the last receipt request answered: waiting, none (204), failed, ok
    this.db = null;
    this.timers = { ask: null, save: null };
    this.asking = false;
    this.lastAsked = 0;
    this.failures = 0;
    this.wholeSeed = false;
    this.over = false; // the game has ended: its finished head is asked for
    this.build();
  }

  /** Restore what this browser kept of the game, and learn the log's key (once a page). */
  async start() {
    try {
      this.db = await openStore();
      this.merge(await stored(this.db, "readonly", (s) => s.get(this.gameId)));
      if (this.seen.size) this.save(); // what the page was shown before the store opened
    } catch (e) {
      this.warn(t("receipts.no_store"));
    }
    const { status, body } = await api("/api/log/key").catch(() => ({ status: 0, body: null }));
    if (status === 200 && body && body.vkey) this.log = { origin: body.origin, vkey: body.vkey, retired: body.retired || [] };
    this.paint();
    if (this.uncovered()) this.schedule(0);
  }

  merge(kept) {
    if (!kept) return;
    if (kept.seed_commitment && this.seed && kept.seed_commitment !== this.seed)
      this.warn(t("receipts.other_seed_kept", { seed: short(kept.seed_commitment) }));
    this.seed = kept.seed_commitment || this.seed;
    for (const [seq, hash] of kept.seen || []) this.add(seq, hash);
    for (const receipt of kept.receipts || []) this.keep(receipt);
    this.log = this.log || kept.log || null;
  }

  /** A receipt not held yet, in the order of the log's growth: the first and the newest `KEEP` are kept. */
  keep(receipt) {
    if (this.receipts.some((r) => r.index === receipt.index && r.size === receipt.size)) return false;
    this.receipts.push(receipt);
    this.receipts.sort((a, b) => a.size - b.size || a.index - b.index);
    if (this.receipts.length > KEEP) this.receipts.splice(1, this.receipts.length - KEEP);
    return true;
  }

  /** Frames (hello, event, resync) or listed events shown to the player: their (seq, hash). */
  saw(...items) {
    const fresh = items.filter((item) => item.hash && this.add(item.seq, item.hash));
    if (!fresh.length) return;
    if (fresh.some((item) => item.status === "finished")) this.over = true;
    this.save();
    this.schedule(Math.max(FIRST_MS, EVERY_MS - (Date.now() - this.lastAsked)));
    this.paint();
  }

  /** The game is over: ask for the receipt of its last head now, and until one covers it. */
  end() {
    this.over = true;
    this.schedule(FIRST_MS);
  }

  add(seq, hash) {
    const known = this.seen.get(seq) || [];
    if (known.includes(hash)) return false;
    this.seen.set(seq, [...known, hash]);
    return true;
  }

  /** What the page was last shown of event `seq`. */
  latest(seq) {
    const known = this.seen.get(seq) || [];
    return known[known.length - 1] || "";
  }

  highest() {
    return Math.max(0, ...this.seen.keys());
  }

  /** The newest head of this game a receipt proves (sealed while live, plain at the end): {seq, finished, receipt}. */
  covered() {
    let best = null;
    for (const receipt of this.receipts) {
      const leaf = leafOf(receipt);
      if (!leaf || !["head", "sealed"].includes(leaf.kind) || leaf.id !== this.gameId) continue;
      if (!best || leaf.seq > best.seq || (leaf.seq === best.seq && leaf.finished)) best = { seq: leaf.seq, finished: !!leaf.finished, receipt };
    }
    return best;
  }

  /** Events shown that no receipt covers yet, or a game over whose finished head no receipt holds. */
  uncovered() {
    const best = this.covered();
    return this.highest() > (best ? best.seq : 0) || (this.over && !(best && best.finished));
  }

  schedule(delay) {
    if (this.timers.ask !== null || this.asking) return;
    this.timers.ask = setTimeout(() => this.ask(), delay);
  }

  async ask() {
    this.timers.ask = null;
    this.asking = true;
    this.lastAsked = Date.now();
    const path = `/api/games/${encodeURIComponent(this.gameId)}/receipt`;
    const { status, body } = await api(path).catch(() => ({ status: 0, body: null }));
    this.asking = false;
    const before = this.receipts.length;
    if (status === 200 && body && body.leaf) this.take(body);
    else this.state = status === 204 ? "none" : "failed"; // not logged yet, or the server away: quietly
    // a new receipt: the next in a few seconds; none (or the same again: the log is not moving): back off
    this.failures = this.receipts.length > before ? 0 : this.failures + 1;
    this.paint();
    if (this.uncovered()) this.schedule(this.failures ? RETRY_MS[Math.min(this.failures, RETRY_MS.length) - 1] : EVERY_MS);
  }

  take(receipt) {
    this.state = "ok";
    const leaf = leafOf(receipt);
    if (!leaf || !this.keep(receipt)) return;
    // like against like: a live game's sealed head against the seals shown, its plain one once it is over
    const logged = leaf.kind === "sealed" ? leaf.seal : leaf.hash;
    const comparable = leaf.kind === "sealed" ? !this.over : leaf.kind === "head" && this.over;
    const shown = this.seen.get(leaf.seq) || [];
    if (comparable && shown.length && !shown.includes(logged))
      this.warn(t("receipts.head_differs", { seq: leaf.seq, logged: short(logged), shown: short(shown[shown.length - 1]) }));
    if (receipt.seed_commitment && this.seed && receipt.seed_commitment !== this.seed)
      this.warn(t("receipts.other_seed_logged", { seed: short(receipt.seed_commitment) }));
    this.save();
  }

  warn(text) {
    if (!this.warnings.includes(text)) this.warnings.push(text);
    this.paint();
  }

  record() {
    const seen = [...this.seen].sort((a, b) => a[0] - b[0]).flatMap(([seq, known]) => known.map((hash) => [seq, hash]));
    return { seed_commitment: this.seed, seen, receipts: this.receipts, log: this.log };
  }

  save() {
    if (!this.db || this.timers.save !== null) return;
    this.timers.save = setTimeout(() => this.write(), SAVE_MS);
  }

  /** Read, merged and written in one transaction: another tab on the same game adds, never overwrites. */
  write() {
    this.timers.save = null;
    const transaction = this.db.transaction(STORE, "readwrite");
    const store = transaction.objectStore(STORE);
    const read = store.get(this.gameId);
    read.onsuccess = () => {
      this.merge(read.result);
      store.put(this.record(), this.gameId);
    };
    transaction.onerror = () => this.warn(t("receipts.not_kept"));
  }

  /** The receipts file: what `harbormaster verify game.jsonl --receipts FILE` reads. */
  file() {
    const { seed_commitment, seen, receipts, log } = this.record();
    return { format: FORMAT, log: log || { origin: "", vkey: "" }, games: { [this.gameId]: { seed_commitment, seen, receipts } } };
  }

  download() {
    const blob = new Blob([JSON.stringify(this.file(), null, 1)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `receipts-${this.gameId}.json`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }

  // --- the panel -------------------------------------------------------------------------------------------

  build() {
    const field = (id) => el("dd", { id });
    this.parts = { brief: el("span", { class: "audit-brief", id: "audit-brief" }), seed: field("audit-seed"), last: field("audit-last"), receipt: field("audit-receipt"), warnings: el("div", { id: "audit-warnings", role: "alert" }) };
    const copy = el("button", { type: "button", class: "small-button", id: "audit-copy", "aria-label": t("receipts.copy_label"), onclick: () => this.copySeed(copy) }, t("receipts.copy"));
    const save = el("button", { type: "button", class: "small-button", id: "download-receipts", onclick: () => this.download() }, t("receipts.download"));
    this.box.replaceChildren(
      el("summary", {}, el("h2", {}, t("receipts.title")), this.parts.brief),
      this.parts.warnings,
      el("dl", { class: "audit-facts" },
        el("dt", {}, t("receipts.seed")), this.parts.seed,
        el("dt", {}, t("receipts.last")), this.parts.last,
        el("dt", {}, t("receipts.latest")), this.parts.receipt),
      el("div", { class: "audit-actions" }, copy, save),
      el("p", { class: "audit-help" }, tNodes("receipts.help", { command: el("code", {}, "harbormaster verify game.jsonl --receipts FILE") })));
    this.paint();
  }

  paint() {
    const { brief, seed, last, receipt, warnings } = this.parts;
    brief.textContent = this.seed ? t("receipts.brief", { seed: short(this.seed) }) : "";
    brief.title = this.seed;
    seed.replaceChildren(el("code", { title: this.seed }, (this.wholeSeed ? this.seed : short(this.seed)) || "—"));
    const top = this.highest();
    last.replaceChildren(top ? el("span", {}, t("receipts.event", { seq: top }), " · ", el("code", { title: this.latest(top) }, short(this.latest(top)))) : t("receipts.none_yet"));
    receipt.replaceChildren(this.receiptLine());
    warnings.replaceChildren(...this.warnings.map((text) => el("p", { class: "notice error" }, text)));
    this.box.dataset.covered = this.covered() ? this.covered().seq : 0;
    this.box.dataset.receipts = this.receipts.length;
  }

  receiptLine() {
    const best = this.covered();
    if (!best) return t(this.state === "failed" ? "receipts.log_silent" : "receipts.not_logged");
    const { origin, size } = checkpointOf(best.receipt.checkpoint);
    return el("span", {}, tNodes("receipts.covered", { seq: best.seq, size: size.toLocaleString("en"), origin: el("code", {}, origin) }));
  }

  async copySeed(button) {
    try {
      await navigator.clipboard.writeText(this.seed);
      button.textContent = t("receipts.copied");
    } catch (e) { // no clipboard (a page not served over https): the whole value, selected, to copy by hand
      this.wholeSeed = true;
      this.paint();
      getSelection().selectAllChildren(this.parts.seed);
      button.textContent = t("receipts.selected");
    }
    setTimeout(() => (button.textContent = t("receipts.copy")), 1500);
  }
}
