// A decision built step by step. Each board module turns a legal command into a path of steps
// ({key, label, num?}); the commands sharing the steps chosen so far are still possible. The next
// steps are highlighted on the board (an element with data-target = the step's key), offered as
// buttons in words (the keyboard fallback) and, for steps that carry a number, as one − / + control.
import { el } from "../dom.js";
import { t } from "../i18n.js";

const MAX_BUTTONS = 14;

function stepId(step) {
  return step.num === undefined ? step.key : `${step.key}=${step.num}`;
}

export class Decision {
  /** `paths`: [{command, steps}], `send(command)`: plays it, `onChange()`: redraw the highlights. */
  constructor(paths, send, onChange) {
    this.paths = paths;
    this.send = send;
    this.onChange = onChange;
    this.chosen = [];
    this.auto = []; // per chosen step: taken by itself (a number with one legal value)
    this.busy = false;
    this.askFirst = () => false; // a one-click move that asks for Confirm first (shell/take-back.js)
  }

  candidates() {
    const n = this.chosen.length;
    return this.paths.filter((p) => this.chosen.every((id, i) => p.steps[i] && stepId(p.steps[i]) === id) && p.steps.length >= n);
  }

  /** The distinct next steps, and the command the chosen steps already make (if any). */
  options() {
    const n = this.chosen.length;
    const next = new Map();
    let complete = null;
    for (const p of this.candidates()) {
      if (p.steps.length === n) complete = p;
      else if (!next.has(stepId(p.steps[n]))) next.set(stepId(p.steps[n]), p.steps[n]);
    }
    return { next: [...next.values()], complete };
  }

  /** Choose a step; a one-step decision (or a path with nothing after it) is played at once. A number
   * that can take one value only is not asked for: it is taken as the step before is chosen, and
   * shown with the confirm (selling one's only share is one click and a confirm, never one click). */
  choose(step) {
    if (this.busy) return;
    this.chosen.push(stepId(step));
    this.auto.push(false);
    for (;;) {
      const { next, complete } = this.options();
      if (complete || next.length !== 1 || next[0].num === undefined) break;
      this.chosen.push(stepId(next[0]));
      this.auto.push(true);
    }
    const { next, complete } = this.options();
    if (complete && next.length === 0 && this.chosen.length === 1 && !this.askFirst(complete.command)) return this.play(complete.command);
    this.onChange();
  }

  /** The board's click on a highlighted target: the first next step with that key. */
  chooseTarget(key) {
    const step = this.options().next.find((s) => s.key === key && s.num === undefined);
    if (step) this.choose(step);
  }

  targets() {
    if (this.busy) return new Set();
    return new Set(this.options().next.filter((s) => s.num === undefined).map((s) => s.key));
  }

  chosenKeys() {
    return this.chosen.map((id) => id.split("=")[0]);
  }

  undo() {
    while (this.auto.length && this.auto[this.auto.length - 1]) this.auto.pop(), this.chosen.pop();
    this.chosen.pop();
    this.auto.pop();
    this.onChange();
  }

  async play(command) {
    this.busy = true;
    this.onChange();
    await this.send(command);
  }

  /** The controls: what is chosen so far, number controls, buttons in words, confirm and undo.
   * Steps that have a target on the board (`onBoard`) are buttons too, folded away: the keyboard's way. */
  controls(prompt, onBoard) {
    const { next, complete } = this.options();
    const box = el("div", { class: "decide" });
    box.append(el("div", { class: "prompt" }, prompt));
    if (this.chosen.length) {
      const labels = this.candidates()[0].steps.slice(0, this.chosen.length).map((s) => s.label);
      box.append(el("div", { class: "chosen-steps" }, labels.join(" · ")));
    }
    const numbered = new Map();
    const plain = [];
    for (const step of next) {
      if (step.num === undefined) plain.push(step);
      else numbered.set(step.key, [...(numbered.get(step.key) || []), step]);
    }
    const amounts = this.amountPaths();
    if (amounts) box.append(this.amountsControl(amounts));
    else for (const steps of numbered.values()) box.append(this.numberControl(steps));
    const row = el("div", { class: "choices" });
    const button = (step) => el("button", { class: "choice", "data-key": step.key, disabled: this.busy, onclick: () => this.choose(step) }, step.label);
    const drawn = plain.filter((s) => onBoard && onBoard.has(s.key));
    const loose = plain.filter((s) => !drawn.includes(s));
    if (loose.length > MAX_BUTTONS) row.append(this.picker(loose));
    else for (const step of loose) row.append(button(step));
    if (drawn.length) {
      const folded = el("details", { class: "in-words" }, el("summary", {}, t("decide.in_words", { n: drawn.length })), drawn.slice(0, MAX_BUTTONS).map(button));
      if (drawn.length > MAX_BUTTONS) folded.append(el("span", { class: "more" }, t("decide.more_on_board", { n: drawn.length - MAX_BUTTONS })));
      box.append(el("div", { class: "hint" }, t("decide.hint")), folded);
    }
    if (complete && this.chosen.length === 1 && !next.length && this.askFirst(complete.command)) box.append(el("div", { class: "final-note" }, t("takeback.final_note")));
    if (complete && this.chosen.length) {
      row.append(el("button", { class: "primary", id: "confirm", disabled: this.busy, onclick: () => this.play(complete.command) }, t("decide.confirm")));
    }
    if (this.chosen.length) row.append(el("button", { id: "undo", disabled: this.busy, onclick: () => this.undo() }, t("decide.back")));
    box.append(row);
    return box;
  }

  /** Many choices with no place on the board (a market card among thirty): one list and a button. */
  picker(steps) {
    const select = el("select", { class: "picker", "aria-label": t("decide.choose_label"), disabled: this.busy }, steps.map((step, i) => el("option", { value: i }, step.label)));
    return el("span", { class: "pick" }, select,
      el("button", { class: "choice primary", "data-key": "pick", disabled: this.busy, onclick: () => this.choose(steps[Number(select.value)]) }, t("decide.choose")));
  }

  /** The candidates whose remaining steps are all numbers under the same two or more keys (a ship's
   * load: tea and silk), or null: those are asked for together, one − / + row per key. */
  amountPaths() {
    const n = this.chosen.length;
    const rest = (p) => p.steps.slice(n);
    const paths = this.candidates().filter((p) => rest(p).length && rest(p).every((s) => s.num !== undefined));
    if (!paths.length) return null;
    const keys = rest(paths[0]).map((s) => s.key).join(" ");
    if (rest(paths[0]).length < 2 || paths.some((p) => rest(p).map((s) => s.key).join(" ") !== keys)) return null;
    return paths;
  }

  /** Several amounts at once: a row per key with − / +, and one button that plays what is shown. What is
   * shown is always a legal command: − / + on a row moves to the nearest legal combination with that
   * row's next value (the other rows change only when they must). It starts at the most, or with
   * `least` on the steps at the least (a ship's load at the most, what stays unsold at the least). */
  amountsControl(paths) {
    const n = this.chosen.length;
    const vecs = paths.map((p) => p.steps.slice(n).map((s) => s.num));
    const total = (v) => v.reduce((a, b) => a + b, 0);
    const sign = paths[0].steps[n].least ? 1 : -1;
    let at = vecs.reduce((best, v, i) => (sign * total(v) < sign * total(vecs[best]) ? i : best), 0);
    const rows = paths[0].steps.slice(n).map((s) => s.key);
    const outputs = rows.map(() => el("output", { class: "num-value" }));
    const summary = el("span", { class: "num-label" });
    const show = () => {
      outputs.forEach((o, r) => (o.textContent = vecs[at][r]));
      summary.textContent = paths[at].steps.slice(n).map((s) => s.label).join(" · ");
    };
    const shift = (r, d) => {
      const now = vecs[at];
      const values = [...new Set(vecs.map((v) => v[r]))].filter((x) => (d > 0 ? x > now[r] : x < now[r]));
      if (!values.length) return;
      const target = d > 0 ? Math.min(...values) : Math.max(...values);
      const distance = (v) => v.reduce((sum, x, j) => sum + Math.abs(x - now[j]), 0);
      at = vecs.reduce((best, v, i) => (v[r] === target && (best < 0 || distance(v) < distance(vecs[best])) ? i : best), -1);
      show();
    };
    const range = (r) => {
      const values = vecs.map((v) => v[r]);
      return `${Math.min(...values)}–${Math.max(...values)}`;
    };
    const box = el("div", { class: "amounts" }, rows.map((key, r) => el("div", { class: "number amount", "data-key": key },
      el("span", { class: "amount-name" }, key.split(":").pop()),
      el("button", { class: "minus", "aria-label": t("decide.less_of", { what: key.split(":").pop() }), disabled: this.busy, onclick: () => shift(r, -1) }, "−"),
      outputs[r],
      el("button", { class: "plus", "aria-label": t("decide.more_of", { what: key.split(":").pop() }), disabled: this.busy, onclick: () => shift(r, 1) }, "+"),
      el("small", {}, range(r)))),
    el("div", { class: "number" }, summary,
      el("button", { class: "primary num-go", disabled: this.busy, onclick: () => this.play(paths[at].command) }, t("decide.confirm"))));
    show();
    return box;
  }

  numberControl(steps) {
    const nums = steps.map((s) => s.num).sort((a, b) => a - b);
    let index = 0;
    const value = el("output", { class: "num-value" }, nums[0]);
    const label = el("span", { class: "num-label" }, steps[0].label);
    const show = () => {
      value.textContent = nums[index];
      label.textContent = steps.find((s) => s.num === nums[index]).label;
    };
    const move = (d) => {
      index = Math.max(0, Math.min(nums.length - 1, index + d));
      show();
    };
    return el("div", { class: "number", "data-key": steps[0].key },
      el("button", { class: "minus", "aria-label": t("decide.less"), disabled: this.busy, onclick: () => move(-1) }, "−"),
      value,
      el("button", { class: "plus", "aria-label": t("decide.more"), disabled: this.busy, onclick: () => move(1) }, "+"),
      el("small", {}, `${nums[0]}–${nums[nums.length - 1]}`),
      el("button", { class: "primary num-go", disabled: this.busy, onclick: () => this.choose(steps.find((s) => s.num === nums[index])) }, label));
  }
}
