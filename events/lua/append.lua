-- Append the events of one or more commands of ONE game and record each command's result, atomically.
-- Each command is checked on its own (expected seq, chain hash, result field); the first command that
-- is not applied stops the rest of the batch, which come back as "skipped" (to be decided again).
-- KEYS[1] = event stream        hm:{g:<id>}:events    entry <seq>-0: "e" envelope; the last event of a
--                               command also carries "r" its result record and "t" Redis's clock (ms)
-- KEYS[2] = results hash        hm:{g:<id>}:results   result field -> result record, and the game's
--                               position "<last seq>:<last hash>" under the field "@position"
-- KEYS[3] = command log stream  hm:{g:<id>}:commands  the records of commands with no event (rejections)
-- KEYS[4] = meta hash           hm:{g:<id>}:meta      (header, seed, status ...: set by meta pairs)
-- ARGV[1] = "create" (the game must not exist yet; the first command is its set-up) or "append"
-- then, for each command, a block of 7 + 2k + m arguments:
--   result field ("<sender>/<command id>": the idempotency key, a command id scoped to its sender, see
--   events/keys.py), expected seq (the seq the decision was made on), chain hash at that seq,
--   result record (msgpack), chain hash after its last event ("" if none; "refused" for a rejection), k, m,
--   k meta field/value pairs to set (status on the last event, the header on create),
--   m envelopes (msgpack) for seq expected+1 ... expected+m
-- Returns one reply per command: {"ok", first_seq, last_seq} | {"dup", recorded result}
--   | {"conflict", current seq} | {"missing"} | {"exists"} | {"skipped"}.
--
-- Every redis.call costs more than the work it does on a small hash, so the position and the batch's
-- recorded results are read with one HMGET and written back with one HSET: the position lives in the
-- results hash for that reason. The script runs once per game and batch, so it is written for speed:
-- one pass over the blocks, no closures or tables it can do without (measured: 15% less time per call).
--
-- A rejection's record is not kept for ever (a client could fill Redis with refused commands): it is
-- marked in the command log ('x'), and each call that records one forgets the oldest marked ones beyond
-- REFUSALS_KEPT in the game or older than REFUSAL_TTL_MS (from the log and the results hash: the command
-- id may then be decided again, which a refused command, having changed nothing, allows).

local POSITION = '@position'
local REFUSED = 'refused'
local REFUSALS_KEPT = 1000
local REFUSAL_TTL_MS = 3600000
local FORGET_AT_ONCE = 64

-- Forget the oldest marked rejections past the count or the age: looks at as many entries as the call
-- recorded and FORGET_AT_ONCE more, so a game at its count forgets at least as many as it records.
local function forget_refusals(now_ms, recorded_now)
  local excess = redis.call('XLEN', KEYS[3]) - REFUSALS_KEPT
  local cutoff = now_ms - REFUSAL_TTL_MS
  local fields, ids = {}, {}
  local oldest = redis.call('XRANGE', KEYS[3], '-', '+', 'COUNT', math.min(recorded_now, 1000) + FORGET_AT_ONCE)
  for _, entry in ipairs(oldest) do
    local entry_id, kv = entry[1], entry[2]
    if excess <= 0 and tonumber(string.match(entry_id, '^(%d+)')) >= cutoff then break end
    if kv[5] == 'x' then
      fields[#fields + 1], ids[#ids + 1], excess = kv[2], entry_id, excess - 1
    end
  end
  if #ids > 0 then
    redis.call('HDEL', KEYS[2], unpack(fields))
    redis.call('XDEL', KEYS[3], unpack(ids))
  end
end

-- The position and each command id's recorded result, in one HMGET (sliced: unpack() is bounded by Lua's
-- C stack, ~8000 values).
local argc = #ARGV
local lookup, n = {POSITION}, 1
local i = 2
while i <= argc do
  n = n + 1
  lookup[n] = ARGV[i]
  i = i + 7 + 2 * ARGV[i + 5] + ARGV[i + 6]
end
local found
if n <= 1000 then
  found = redis.call('HMGET', KEYS[2], unpack(lookup))
else
  found = {}
  for first = 1, n, 1000 do
    local part = redis.call('HMGET', KEYS[2], unpack(lookup, first, math.min(first + 999, n)))
    for _, value in ipairs(part) do found[#found + 1] = value end
  end
end
local current, current_hash = nil, nil
if found[1] then
  local seq, hash = string.match(found[1], '^(%d+):(.*)$')
  current, current_hash = tonumber(seq), hash
end

-- Each command in turn; the first that is refused stops the rest (they come back 'skipped').
local replies, results, r = {}, {}, 0
local creating = ARGV[1] == 'create'
local stopped, moved, clock, recorded, refusals = false, false, nil, nil, 0
local at = 2
for c = 2, n do
  local command_id, expected, at_hash = ARGV[at], tonumber(ARGV[at + 1]), ARGV[at + 2]
  local record = ARGV[at + 3]
  local k, m = tonumber(ARGV[at + 5]), tonumber(ARGV[at + 6])
  local meta_at, events_at = at + 7, at + 7 + 2 * k
  local refused = nil
  if stopped then
    refused = {'skipped'}
  elseif creating then
    if current then refused = {'exists'} end
  elseif not current then
    refused = {'missing'}
  else
    -- recorded before this call, or earlier in this batch (the same id twice)
    local previous = found[c] or (recorded and recorded[command_id])
    if previous then
      refused = {'dup', previous}
    elseif current ~= expected or current_hash ~= at_hash then
      refused = {'conflict', tostring(current)}
    end
  end
  if refused then
    stopped = true
    replies[c - 1] = refused
  else
    for j = 0, m - 2 do
      redis.call('XADD', KEYS[1], (expected + j + 1) .. '-0', 'e', ARGV[events_at + j])
    end
    if m > 0 then  -- the record rides on the command's last event, with Redis's clock at the append
      if not clock then
        local t = redis.call('TIME')
        clock = tostring(t[1] * 1000 + math.floor(t[2] / 1000))
      end
      redis.call('XADD', KEYS[1], (expected + m) .. '-0', 'e', ARGV[events_at + m - 1], 'r', record, 't', clock)
      current, current_hash, moved = expected + m, ARGV[at + 4], true
    elseif ARGV[at + 4] == REFUSED then  -- no event to ride on: the command log, marked to be forgotten
      redis.call('XADD', KEYS[3], '*', 'id', command_id, 'r', record, 'x', '1')
      refusals = refusals + 1
    else  -- applied, with no event (kept like any applied command's)
      redis.call('XADD', KEYS[3], '*', 'id', command_id, 'r', record)
    end
    if k > 0 then
      redis.call('HSET', KEYS[4], unpack(ARGV, meta_at, events_at - 1))
    end
    recorded = recorded or {}
    recorded[command_id] = record
    results[r + 1], results[r + 2], r = command_id, record, r + 2
    replies[c - 1] = {'ok', expected + 1, expected + m}
    creating = false
  end
  at = events_at + m
end
if moved then
  results[r + 1], results[r + 2], r = POSITION, current .. ':' .. current_hash, r + 2
end
if r > 0 then
  for first = 1, r, 1000 do
    redis.call('HSET', KEYS[2], unpack(results, first, math.min(first + 999, r)))
  end
end
if refusals > 0 then
  local t = redis.call('TIME')
  forget_refusals(t[1] * 1000 + math.floor(t[2] / 1000), refusals)
end
return replies
