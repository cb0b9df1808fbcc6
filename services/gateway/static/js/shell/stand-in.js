// Whether a stand-in bot holds the viewer's seat (issue 44): after the clock handed it over (until the
// player takes it back) or after they resigned (to the end). Read from the game's own log
// (domain/seat_control.py: SeatHandedToBot, SeatTakenBack, SeatResigned), which the page has as soon as the
// frame comes; the clock's answer adds a resignation kept beside the log by games older than the event.
// While the stand-in holds it, the seat's turn is the bot's: the page does not say "Your turn" nor offer
// the seat's moves, and the seat controls (shell/seat-controls.js) offer "Take my seat back".
import { S } from "./page.js";

/** "handed", "resigned", or null when the player holds their seat (or the viewer has none). */
export function standIn() {
  const seat = S.viewer;
  if (seat === null || !S.log) return null;
  const clock = S.clocks && S.clocks.clock;
  const own = clock && clock.seats ? clock.seats[seat] : null;
  let held = own && own.resigned ? "resigned" : null;
  for (const item of S.log.events) {
    const event = item.event;
    if (!event || event.seat !== seat) continue;
    if (event.type === "SeatResigned") held = "resigned";
    else if (event.type === "SeatHandedToBot" && held !== "resigned") held = "handed";
    else if (event.type === "SeatTakenBack" && held === "handed") held = null;
  }
  return held;
}
