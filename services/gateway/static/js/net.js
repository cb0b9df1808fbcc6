// The client's two ways to the gateway: JSON over HTTP, and the one function that sends a move.
import { t } from "./i18n.js";

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

/** Moves go as `command` frames on the game's WebSocket; each `result` frame settles its promise. */
export class SocketCommands {
  constructor() {
    this.pending = new Map();
    this.counter = 0;
  }
  /** Each move's own id, whichever way it goes: the log shows the web client sent it. */
  nextId(way) {
    return `web-${way}${Date.now().toString(36)}-${(this.counter += 1)}`;
  }
  send(socket, command) {
    const id = this.nextId("");
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      socket.send(JSON.stringify({ type: "command", command_id: id, command }));
    });
  }
  /** A `result` frame: true when it was one of ours. */
  settle(frame) {
    const resolve = this.pending.get(frame.command_id);
    if (!resolve) return false;
    this.pending.delete(frame.command_id);
    resolve(frame.status === "applied" ? { ok: true, message: "" } : { ok: false, message: frame.message || frame.code });
    return true;
  }
  /** A socket that closes leaves its moves unsettled: they are reported as not sent. */
  dropAll() {
    for (const resolve of this.pending.values()) resolve({ ok: false, message: t("net.dropped") });
    this.pending.clear();
  }
}

/** One move over HTTP, waiting for its outcome: {ok, message} (used while the socket is not open). */
export async function sendOverHttp(gameId, token, command, commandId) {
  const { status, body } = await api(`/api/games/${encodeURIComponent(gameId)}/commands?wait=true`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json" },
    body: JSON.stringify({ command, command_id: commandId }),
  });
  if (status === 200 || status === 202) return { ok: true, message: "" };
  return { ok: false, message: body ? body.message || body.error : t("error.refused", { status }) };
}
