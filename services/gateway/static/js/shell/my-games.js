// Games by links in My games (issue 44.10): the seat a page holds by its link's token is kept in the
// signed-in account's My games (POST /api/games/{id}/mine; services/gateway/api/linked_games.py).
import { api, bearer } from "../net.js";

/** A seat held by its link's token, on a signed-in account's page, goes into that account's My games (a
 * page signed out asks nothing: it has no My games, and a refused request is a console error). */
export async function keepInMyGames(gameId, token) {
  if (!token) return;
  const session = await api("/api/session");
  if (session.status === 200 && session.body && session.body.name) {
    await api(`/api/games/${gameId}/mine`, { method: "POST", headers: bearer(token) });
  }
}
