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

/** Send one move and wait for its outcome: {ok, message}. The only place that knows the transport:
 * once the gateway takes command frames on the game's WebSocket, this is the line to change. */
export async function sendCommand(gameId, token, command) {
  const { status, body } = await api(`/api/games/${encodeURIComponent(gameId)}/commands?wait=true`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json" },
    body: JSON.stringify({ command }),
  });
  if (status === 200 || status === 202) return { ok: true, message: "" };
  return { ok: false, message: body ? body.message || body.error : `refused (${status})` };
}
