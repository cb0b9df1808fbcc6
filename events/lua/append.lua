-- Append the events of one or more commands of ONE game and record each command's result, atomically.
-- Each command is checked on its own (expected seq, chain hash, command id); the first command that
-- is not applied stops the rest of the batch, which come back as "skipped" (to be decided again).
-- KEYS[1] = event stream        hm:{g:<id>}:events    entry <seq>-0: "e" envelope; the last event of a
--                               command also carries "r" its result record and "t" Redis's clock (ms)
-- KEYS[2] = results hash        hm:{g:<id>}:results   command id -> result record, and the game's
--                               position "<last seq>:<last hash>" under the field "@position"
-- KEYS[3] = command log stream  hm:{g:<id>}:commands  the records of commands with no event (rejections)
-- KEYS[4] = meta hash           hm:{g:<id>}:meta      (header, seed, status ...: set by meta pairs)
-- ARGV[1] = "create" (the game must not exist yet; the first command is its set-up) or "append"
-- then, for each command, a block of 7 + 2k + m arguments:
--   command id, expected seq (the seq the decision was made on), chain hash at that seq,
--   result record (msgpack), chain hash after its last event ("" if none), k, m,
--   k meta field/value pairs to set (status on the last event, the header on create),
--   m envelopes (msgpack) for seq expected+1 ... expected+m
-- Returns one reply per command: {"ok", first_seq, last_seq} | {"dup", recorded result}
--   | {"conflict", current seq} | {"missing"} | {"exists"} | {"skipped"}.
--
-- Every redis.call costs more than the work it does on a small hash, so the position and the batch's
-- recorded results are read with one HMGET and written back with one HSET: the position lives in the
-- results hash for that reason.

local POSITION = '@position'

-- Redis's clock in milliseconds, read once a call (and only if a command appends events).
local clock = nil
local function now()
  if not clock then
    local t = redis.call('TIME')
    clock = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  end
  return clock
end

-- unpack() is bounded by Lua's C stack (~8000 values), so long argument lists go in slices.
local function call_sliced(command, key, values, reply)
  for first = 1, #values, 1000 do
    local part = redis.call(command, key, unpack(values, first, math.min(first + 999, #values)))
    if reply then
      for _, value in ipairs(part) do reply[#reply + 1] = value end
    end
  end
  return reply
end

-- Where each command's block starts; the position and each command id's recorded result (one HMGET).
local starts, lookup = {}, {POSITION}
local i = 2
while i <= #ARGV do
  starts[#starts + 1] = i
  lookup[#lookup + 1] = ARGV[i]
  i = i + 7 + 2 * tonumber(ARGV[i + 5]) + tonumber(ARGV[i + 6])
end
local found = call_sliced('HMGET', KEYS[2], lookup, {})
local current, current_hash = nil, nil
if found[1] then
  local seq, hash = string.match(found[1], '^(%d+):(.*)$')
  current, current_hash = tonumber(seq), hash
end
local recorded = {}
for n = 2, #lookup do
  if found[n] then recorded[lookup[n]] = found[n] end
end

local function check(command_id, expected, at_hash, creating)
  if creating then
    if current then return {'exists'} end
    return nil
  end
  if not current then return {'missing'} end
  local previous = recorded[command_id]
  if previous then return {'dup', previous} end
  if current ~= expected or current_hash ~= at_hash then
    return {'conflict', tostring(current)}
  end
  return nil
end

local replies, results = {}, {}
local creating = ARGV[1] == 'create'
local stopped, moved = false, false
for n = 1, #starts do
  local at = starts[n]
  local command_id, expected, at_hash = ARGV[at], tonumber(ARGV[at + 1]), ARGV[at + 2]
  local record, last_hash = ARGV[at + 3], ARGV[at + 4]
  local k, m = tonumber(ARGV[at + 5]), tonumber(ARGV[at + 6])
  local meta_at, events_at = at + 7, at + 7 + 2 * k
  local refused = nil
  if stopped then refused = {'skipped'} else refused = check(command_id, expected, at_hash, creating) end
  if refused then
    stopped = true
    replies[n] = refused
  else
    for j = 0, m - 2 do
      redis.call('XADD', KEYS[1], (expected + j + 1) .. '-0', 'e', ARGV[events_at + j])
    end
    if m > 0 then  -- the record rides on the command's last event, with Redis's clock at the append
      redis.call('XADD', KEYS[1], (expected + m) .. '-0', 'e', ARGV[events_at + m - 1], 'r', record, 't', now())
      current, current_hash, moved = expected + m, last_hash, true
    else  -- no event to ride on (a rejection): the command log
      redis.call('XADD', KEYS[3], '*', 'id', command_id, 'r', record)
    end
    if k > 0 then
      redis.call('HSET', KEYS[4], unpack(ARGV, meta_at, events_at - 1))
    end
    recorded[command_id] = record
    results[#results + 1] = command_id
    results[#results + 1] = record
    replies[n] = {'ok', expected + 1, expected + m}
    creating = false
  end
end
if moved then
  results[#results + 1] = POSITION
  results[#results + 1] = current .. ':' .. current_hash
end
if #results > 0 then
  call_sliced('HSET', KEYS[2], results, nil)
end
return replies
