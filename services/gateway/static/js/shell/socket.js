// The game's WebSocket through its life: opened with the seat's token from the last event seen, its
// frames handed to the page (a move's `result` settles the move, a `pong` is only a sign of life), closed
// sockets opened again with a growing wait (up to 8 s), and the one function that sends a move.
import { t } from "../i18n.js";
import { sendOverHttp, SocketCommands } from "../net.js";
import { S, gameId, setConn } from "./page.js";

let socket = null;
let retry = 500;
const commands = new SocketCommands();

/** The one function that sends a move: on the game's socket when it is open, else over HTTP. */
export function sendCommand(command) {
  if (socket && socket.readyState === WebSocket.OPEN) return commands.send(socket, command);
  return sendOverHttp(gameId, S.token, command, commands.nextId("http-"));
}

/** Open the socket from event `from` on; each frame of the game goes to `onFrame`. */
export function connect(from, onFrame) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const params = new URLSearchParams();
  if (S.token) params.set("token", S.token);
  if (from) params.set("from", String(from));
  socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}?${params}`);
  if (S.presence) S.presence.watch(socket);
  socket.onopen = () => {
    setConn(t(S.live && S.live.status === "finished" ? "conn.game_over" : "conn.connected"));
    retry = 500;
  };
  socket.onmessage = (message) => {
    if (S.presence) S.presence.heard(); // "connected" holds only while frames arrive
    const frame = JSON.parse(message.data);
    if (frame.type === "pong" || frame.type === "result") return void (frame.type === "result" && commands.settle(frame));
    onFrame(frame);
  };
  socket.onclose = (event) => {
    commands.dropAll();
    if (event.code >= 4400 && event.code < 4500) return setConn(t("conn.refused", { reason: event.reason }));
    if (S.live && S.live.status === "finished") return setConn(t("conn.game_over"));
    setConn(t("conn.reconnecting"));
    setTimeout(() => connect(S.live ? S.live.seq : from, onFrame), retry);
    retry = Math.min(retry * 2, 8000);
  };
}
