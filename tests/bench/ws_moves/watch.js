// Spectators for the fan-out benchmark: N WebSockets on one game. Prints {"ready": n} once all are open,
// then, when a line arrives on stdin, one JSON line: for each event seq, when it reached the 1st and the Nth spectator
// (epoch ms, sub-ms resolution), and how many resync frames replaced events (frames not delivered).
// Usage: node watch.js URL N
const WebSocket = require('ws');
const { performance } = require('perf_hooks');
const [url, N] = [process.argv[2], +process.argv[3]];
const now = () => performance.timeOrigin + performance.now();
const seen = new Map();  // seq -> [first, count, last]
let open = 0, resyncs = 0, failed = 0, refused = 0;
const sockets = [];
function connect(i) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const settled = () => { if (open + refused + failed === N) console.log(JSON.stringify({ ready: open })); };
  ws.on('error', () => { failed++; settled(); });
  ws.on('close', (code) => { if (code >= 4000) { refused++; settled(); } });
  ws.on('message', (data) => {
    const t = now();
    // Only the head of a frame is read: {"type":"event","seq":N,… (a full parse per frame made this
    // client, not the gateway, the slowest part of the measurement).
    const head = /^\{"type":"(\w+)"(?:,"seq":(\d+))?/.exec(data.toString('utf8', 0, 48));
    if (!head) return;
    if (head[1] === 'hello') { open++; settled(); return; }
    if (head[1] === 'resync') { resyncs++; return; }
    if (head[1] !== 'event') return;
    const seq = +head[2];
    const s = seen.get(seq);
    if (s) { s[1]++; s[2] = t; } else seen.set(seq, [t, 1, t]);
  });
  sockets.push(ws);
}
(async () => {
  for (let i = 0; i < N; i++) {
    connect(i);
    if (i % 200 === 199) await new Promise((r) => setTimeout(r, 20));
  }
  process.stdin.once('data', () => {
    const events = {};
    for (const [seq, [first, count, last]] of seen) events[seq] = { first, count, last };
    console.log(JSON.stringify({ open, failed, refused, resyncs, events }));
    sockets.forEach((ws) => ws.terminate());
    process.exit(0);
  });
})();
