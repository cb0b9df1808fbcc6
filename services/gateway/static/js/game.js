// A game's page: the board drawn by the game's renderer, live over the WebSocket; a seat holder plays
// by choosing among the legal commands; a finished game can be replayed event by event with a slider.
"use strict";
(function () {
  const { el, api } = HM;
  const gameId = decodeURIComponent(location.pathname.split("/").pop());
  const fragment = new URLSearchParams(location.hash.slice(1));
  let token = fragment.get("token") || sessionStorage.getItem("hm-token-" + gameId) || "";
  let game = null, seq = 0, status = "live", viewer = null, socket = null, replaying = false, retry = 500;

  function authHeaders() { return token ? { Authorization: "Bearer " + token } : {}; }
  function setConn(text) { document.getElementById("conn").textContent = text; }
  function notice(text, kind) { document.getElementById("notice").replaceChildren(text ? el("div", { class: "notice " + kind }, text) : ""); }

  function render(view, toAct, outcome, atSeq, shown) {
    const draw = HM.Boards[game.game] || HM.Boards.generic;
    let board;
    try { board = draw(view, { viewer, toAct }); } catch (e) { board = el("div", {}, el("p", {}, "(board renderer failed: " + e + ")"), HM.Boards.generic(view)); }
    document.getElementById("board").replaceChildren(board);
    document.getElementById("tree").replaceChildren(HM.tree(view, "view"));
    const result = outcome ? el("div", { class: "notice ok", id: "outcome" }, "Game over — winners: ", outcome.winners.map((s) => [HM.seat(s), " seat " + s + " "]), " scores ", outcome.scores.join(" / ")) : null;
    document.getElementById("summary").replaceChildren(
      el("h2", {}, game.title, " ", el("span", { class: "badge " + status, id: "status" }, shown || status)),
      el("div", {}, `event `, el("b", { id: "seq" }, atSeq), ` · to act: `, toAct.length ? toAct.map((s) => [HM.seat(s), " "]) : "nobody",
        viewer === null ? " · watching as a spectator" : [" · you are ", HM.seat(viewer), " seat " + viewer]), result || "");
    document.body.dataset.seq = atSeq;
    document.body.dataset.status = status;
  }

  function logEvent(frame) {
    const log = document.getElementById("log");
    const text = frame.event ? HM.describe(frame.event) : "(hidden)";
    log.prepend(el("div", { "data-seq": frame.seq }, `#${frame.seq} `, frame.seat !== null ? ["seat " + frame.seat, " "] : "", text));
  }

  async function refreshLegal(toAct) {
    const box = document.getElementById("legal");
    if (viewer === null || status !== "live" || replaying || !toAct.includes(viewer)) { box.replaceChildren(viewer !== null && status === "live" ? el("p", {}, "Waiting for the others…") : ""); return; }
    const { status: code, body } = await api(`/api/games/${gameId}/legal`, { headers: authHeaders() });
    if (code !== 200) { box.replaceChildren(el("p", {}, body ? body.message : "cannot list your moves")); return; }
    box.replaceChildren(el("p", {}, `Your move (${body.length} choices):`), ...body.slice(0, 300).map((command) =>
      el("button", { class: "cmd", onclick: () => play(command) }, HM.describe(command))));
  }

  async function play(command) {
    document.querySelectorAll("#legal button").forEach((b) => (b.disabled = true));
    const { status: code, body } = await api(`/api/games/${gameId}/commands?wait=true`, {
      method: "POST", headers: { ...authHeaders(), "Content-Type": "application/json" }, body: JSON.stringify({ command }) });
    if (code === 200) notice(`Played ${HM.describe(command)} (event ${body.seq}).`, "ok");
    else notice(`${body.error || body.code}: ${body.message}`, "error");
  }

  function onFrame(frame) {
    if (frame.type === "pong") return;
    if (frame.type === "hello") viewer = frame.viewer;
    if (frame.type === "event" && frame.seq <= seq) return;
    seq = frame.seq;
    status = frame.status;
    if (frame.type === "event") logEvent(frame);
    if (!replaying) { render(frame.view, frame.to_act, frame.outcome, frame.seq); refreshLegal(frame.to_act); }
    if (status === "finished") setupReplay();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams();
    if (token) params.set("token", token);
    if (seq) params.set("from", String(seq));
    socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}?${params}`);
    socket.onopen = () => { setConn(status === "finished" ? "game over" : "live"); retry = 500; };
    socket.onmessage = (message) => onFrame(JSON.parse(message.data));
    socket.onclose = (event) => {
      if (event.code >= 4400 && event.code < 4500) { setConn(`refused (${event.code}): ${event.reason}`); return; }
      if (status === "finished") { setConn("game over"); return; }
      setConn("reconnecting…"); setTimeout(connect, retry); retry = Math.min(retry * 2, 8000);
    };
  }

  let replayReady = false, replayTimer = null;
  async function setupReplay() {
    if (replayReady) return;
    replayReady = true;
    const { body } = await api(`/api/games/${gameId}/events?from=0&limit=5000`);
    // The set-up: event 1 and those after it of the same command, with no seat (its id is random).
    const head = body.events[0];
    const first = Math.max(1, ...body.events.filter((e) => head && e.seat === null && e.command_id === head.command_id).map((e) => e.seq));
    const slider = document.getElementById("replay");
    slider.min = first; slider.max = body.last_seq; slider.value = body.last_seq;
    document.getElementById("replay-max").textContent = body.last_seq;
    document.getElementById("replay-seq").textContent = body.last_seq;
    document.getElementById("replay-panel").hidden = false;
    slider.addEventListener("input", () => { clearTimeout(replayTimer); replayTimer = setTimeout(() => showAt(Number(slider.value)), 60); });
    document.getElementById("replay-live").addEventListener("click", () => { slider.value = slider.max; showAt(Number(slider.max)); });
  }

  async function showAt(at) {
    replaying = at < seq;
    const { status: code, body } = await api(`/api/games/${gameId}?at=${at}`, { headers: authHeaders() });
    if (code !== 200) return;
    document.getElementById("replay-seq").textContent = at;
    render(body.view, body.to_act, body.outcome, at, replaying ? `replay ${at} / ${seq}` : status);
  }

  async function start() {
    const { status: code, body } = await api(`/api/games/${gameId}`, { headers: authHeaders() });
    if (code === 403) { notice("That token is not a seat of this game; watching as a spectator.", "error"); token = ""; return start(); }
    if (code !== 200) { setConn(body ? body.message : "unavailable"); return; }
    game = body; viewer = body.viewer; status = body.status;
    if (token) sessionStorage.setItem("hm-token-" + gameId, token);
    document.getElementById("title").textContent = `${body.title} · ${gameId}`;
    document.title = `Harbormaster — ${body.title}`;
    document.getElementById("token").value = token;
    document.getElementById("seat-info").replaceChildren(viewer === null ? "Spectating. Paste a seat token to play." : el("span", {}, "Playing ", HM.seat(viewer), " seat " + viewer));
    await loadLog();
    connect();
  }

  async function loadLog() {
    const headers = authHeaders();
    const { status: code, body } = await api(`/api/games/${gameId}/events?from=${Math.max(0, game.last_seq - 40)}`, { headers });
    if (code !== 200) return;
    for (const item of body.events) logEvent({ seq: item.seq, seat: item.seat, event: item.event });
    seq = body.last_seq;  // the socket starts here: the log then has no gap and no repeat
  }

  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    token = document.getElementById("token").value.trim();
    location.hash = token ? "token=" + token : "";
    location.reload();
  });
  start();
})();
