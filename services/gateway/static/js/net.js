// The client's two ways to the gateway: JSON over HTTP, and the one function that sends a move.
export async function api(path, options) {
  const response = await fetch(path, options);
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    body = null;
  }
  return { status: response.status, body };
}

export function bearer(token) {
  return token ? { Authorization: "Bearer " + token } : {};
}

let socket = null;
const waiting = new Map(); // command_id -> resolve
let sent = 0;

/** The game's WebSocket, once open: moves go over it (one frame each way) instead of an HTTP request. */
export function attachSocket(ws) {
  socket = ws;
  ws.addEventListener("close", () => {
    if (socket === ws) socket = null;
    for (const [id, resolve] of waiting) resolve({ ok: false, message: "the connection was lost; try again" });
    waiting.clear();
  });
}

/** A ``result`` frame from the socket: settles the move that carried its command id. */
export function onResult(frame) {
  const resolve = waiting.get(frame.command_id);
  if (!resolve) return;
  waiting.delete(frame.command_id);
  resolve(frame.status === "applied" ? { ok: true, message: "" } : { ok: false, message: frame.message || frame.code });
}

/** Send one move and wait for its outcome: {ok, message}. Over the game's WebSocket when it is open
 * (the same checks and codes as HTTP), else over HTTP. */
export async function sendCommand(gameId, token, command) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    const commandId = `web-${Date.now().toString(36)}-${++sent}`;
    const outcome = new Promise((resolve) => waiting.set(commandId, resolve));
    socket.send(JSON.stringify({ type: "command", command_id: commandId, command }));
    return outcome;
  }
  const { status, body } = await api(`/api/games/${encodeURIComponent(gameId)}/commands?wait=true`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json" },
    body: JSON.stringify({ command }),
  });
  if (status === 200 || status === 202) return { ok: true, message: "" };
  return { ok: false, message: body ? body.message || body.error : `refused (${status})` };
}
