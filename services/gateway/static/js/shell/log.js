// The game's log in plain language, grouped by move (one command = one move), newest on top.
// Replay uses the same moves: move k ends with the last event of the k-th command after the set-up.
import { el } from "../dom.js";
import { timeoutLine } from "./clocks.js";
import { seatLine } from "./seat-controls.js";
import { takeBackLine } from "./take-back.js";

export class GameLog {
  constructor(root, board, context) {
    this.root = root;
    this.board = board;
    this.context = context; // () => {people, ...}
    this.events = [];
    this.moves = []; // [{last, commandId, node}]
    this.runs = {}; // per seat: the move whose events began the run it may take back (MovesBegan)
  }

  /** All events again (the end of a game shows what was hidden). */
  reset(events) {
    this.events = [];
    this.moves = [];
    this.runs = {};
    this.root.replaceChildren();
    for (const item of events) this.add(item);
  }

  add(item) {
    if (this.events.length && item.seq <= this.events[this.events.length - 1].seq) return;
    this.events.push(item);
    const last = this.moves[this.moves.length - 1];
    if (last && last.commandId === item.command_id) {
      last.last = item.seq;
      this.line(last, item);
      return;
    }
    const move = { last: item.seq, commandId: item.command_id, node: el("div", { class: "move", "data-move": this.moves.length }) };
    this.moves.push(move);
    const late = timeoutLine(item, this.context().people); // a move the clock played says so first
    if (late) move.node.append(late);
    this.line(move, item);
    this.root.prepend(move.node);
  }

  line(move, item) {
    let text = null;
    try {
      this.strike(item.event);
      let own = item.event ? takeBackLine(item.event, this.context().people) : null;
      if (own === undefined) own = seatLine(item.event, this.context().people); // who plays a seat
      text = own !== undefined ? own : this.board.describe(item.event, { ...this.context(), seat: item.seat });
    } catch (e) {
      text = null;
    }
    if (text === null || text === undefined || text === "") return;
    move.node.append(el("div", { class: "line", "data-seq": item.seq }, text));
  }

  /** A take-back strikes through the moves it took back (they stay in the log: nothing is deleted). */
  strike(event) {
    if (!event) return;
    if (event.type === "MovesBegan") this.runs[event.seat] = this.moves.length - 1;
    if (event.type !== "MovesTakenBack" || this.runs[event.seat] === undefined) return;
    for (let i = this.runs[event.seat]; i < this.moves.length - 1; i++) this.moves[i].node.classList.add("taken-back");
    delete this.runs[event.seat];
  }

  /** The move index whose last event is at or before `seq`. */
  moveAt(seq) {
    let index = 0;
    for (let i = 0; i < this.moves.length; i++) if (this.moves[i].last <= seq) index = i;
    return index;
  }

  /** Show the log as it stood after move `index` (null: live, everything). */
  follow(index) {
    for (let i = 0; i < this.moves.length; i++) {
      const node = this.moves[i].node;
      node.classList.toggle("future", index !== null && i > index);
      node.classList.toggle("current", index !== null && i === index);
    }
    // Scroll the log box only, never the page (the board stays where the reader looks).
    if (index !== null && this.moves[index]) this.root.scrollTop = Math.max(0, this.moves[index].node.offsetTop - 8);
  }

  /** The events up to `seq` (boards read the last dice roll from them). */
  until(seq) {
    return this.events.filter((e) => e.seq <= seq);
  }
}
