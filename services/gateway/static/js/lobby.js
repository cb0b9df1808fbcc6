// The lobby: live and finished games (refreshed), and a form to create a game.
"use strict";
(function () {
  const { el, api } = HM;
  let finishedOffset = 0;
  function row(game) {
    return el("tr", { "data-game": game.game_id },
      el("td", {}, el("a", { href: "/games/" + game.game_id }, game.game_id)),
      el("td", {}, game.title), el("td", {}, game.seats + (Object.keys(game.bots).length ? ` (${Object.keys(game.bots).length} bots)` : "")),
      el("td", {}, game.seq), el("td", {}, el("span", { class: "badge " + game.status }, game.status)));
  }
  async function refresh() {
    const live = await api("/api/games?status=live&limit=50");
    const finished = await api(`/api/games?status=finished&limit=${20 + finishedOffset}`);
    if (live.status !== 200) { document.getElementById("conn").textContent = "gateway unavailable"; return; }
    document.querySelector("#live tbody").replaceChildren(...live.body.games.map(row));
    document.querySelector("#finished tbody").replaceChildren(...finished.body.games.map(row));
    document.getElementById("more-finished").hidden = finished.body.next_offset === null;
    document.getElementById("conn").textContent = `${live.body.games.length} live · updated ${new Date().toLocaleTimeString()}`;
  }
  async function catalog() {
    const { body } = await api("/api/catalog");
    const select = document.getElementById("game-kind");
    for (const game of body.games) select.append(el("option", { value: game.key, "data-min": game.min_seats, "data-max": game.max_seats }, `${game.title} (${game.min_seats}–${game.max_seats})`));
  }
  async function create(event) {
    event.preventDefault();
    const form = event.target;
    const seats = Number(form.seats.value);
    const bots = {};
    if (form.bots.checked) for (let s = 1; s < seats; s++) bots[String(s)] = s % 2 ? "greedy" : "random";
    const headers = { "Content-Type": "application/json" };
    if (form.admin.value) headers.Authorization = "Bearer " + form.admin.value;
    const { status, body } = await api("/api/games", { method: "POST", headers, body: JSON.stringify({ game: form.game.value, seats, bots }) });
    const out = document.getElementById("created");
    if (status !== 201) { out.replaceChildren(el("div", { class: "notice error" }, `${body.error}: ${body.message}`)); return; }
    out.replaceChildren(el("div", { class: "notice ok" }, "Created ", el("a", { href: "/games/" + body.game_id }, body.game_id), ". Each link below holds a seat's secret token; it is shown only now."),
      el("ul", {}, body.seats.map((s) => el("li", {}, HM.seat(s.seat), " seat " + s.seat + ": ",
        s.token ? el("a", { href: `/games/${body.game_id}#token=${s.token}`, class: "seat-link" }, "play") : `bot (${s.bot})`))));
    refresh();
  }
  document.getElementById("create").addEventListener("submit", create);
  document.getElementById("more-finished").addEventListener("click", () => { finishedOffset += 20; refresh(); });
  catalog(); refresh(); setInterval(refresh, 3000);
})();
