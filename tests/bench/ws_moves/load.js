// Load for the Harbormaster side of the moves benchmark, the same as tests/bench/boardgameio/load.js:
// per game two seat sockets; a seat sends its move over its WebSocket as soon as a pushed frame says it is
// its turn. Prints moves/s and the p50/p99 time between a seat's two consecutive turns.
// Usage: node load.js GAMES.json SECS   (GAMES.json: [{"game_id", "tokens": [t0, t1]}], WS base in $HM_WS)
const WebSocket = require('ws');
const fs = require('fs');
const games = JSON.parse(fs.readFileSync(process.argv[2]));
const SECS = +process.argv[3] || 10;
const base = process.env.HM_WS;
let moves = 0, lat = [], running = true, refused = 0, errors = 0;
function seat(game, s) {
  const ws = new WebSocket(`${base}/ws/games/${game.game_id}?token=${game.tokens[s]}`);
  let actedAt = 0, sent = 0, n = 0;
  ws.on('message', (data) => {
    const f = JSON.parse(data);
    if (f.type === 'result') { if (f.status !== 'applied') refused++; return; }
    if (f.type !== 'hello' && f.type !== 'event' && f.type !== 'resync') return;
    if (!running || !f.to_act.includes(s) || f.seq <= actedAt) return;
    actedAt = f.seq;
    if (sent) lat.push(Date.now() - sent);
    sent = Date.now();
    moves++;
    ws.send(JSON.stringify({ type: 'command', command_id: `s${s}-${++n}`, command: { type: 'Move' } }));
  });
  ws.on('error', () => { errors++; });
  return ws;
}
(async () => {
  const all = [];
  for (const g of games) all.push(seat(g, 0), seat(g, 1));
  await new Promise((r) => setTimeout(r, 2000));
  const m0 = moves, t0 = Date.now(); lat = [];
  await new Promise((r) => setTimeout(r, SECS * 1000));
  const m1 = moves, t1 = Date.now();
  running = false;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.floor(p * (lat.length - 1))];
  console.log(JSON.stringify({ peer: 'harbormaster', matches: games.length, moves_per_s: Math.round((m1 - m0) / ((t1 - t0) / 1000)), p50_ms: q(0.5), p99_ms: q(0.99), refused, errors }));
  all.forEach((ws) => ws.terminate());
  process.exit(0);
})();
