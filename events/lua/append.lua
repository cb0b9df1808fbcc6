-- Append the events of one or more commands of ONE game and record each command's result, atomically.
-- Each command is checked on its own (expected seq, chain hash, command id); the first command that
-- is not applied stops the rest of the batch, which come back as "skipped" (to be decided again).
-- KEYS[1] = event stream        hm:{g:<id>}:events
-- KEYS[2] = results hash        hm:{g:<id>}:results
-- KEYS[3] = command log stream  hm:{g:<id>}:commands
-- KEYS[4] = meta hash           hm:{g:<id>}:meta
-- ARGV[1] = "create" (the game must not exist yet; the first command is its set-up) or "append"
-- then, for each command, a block of 7 + 2k + m arguments:
--   command id, expected seq (the seq the decision was made on), chain hash at that seq,
--   result record (msgpack), chain hash after its last event ("" if none), k, m,
--   k meta field/value pairs to set (status on the last event, the header on create),
--   m envelopes (msgpack) for seq expected+1 ... expected+m
-- Returns one reply per command: {"ok", first_seq, last_seq} | {"dup", recorded result}
--   | {"conflict", current seq} | {"missing"} | {"exists"} | {"skipped"}.

-- The game's position is read once and carried through the batch; it is written back once at the end.
local current = redis.call('HGET', KEYS[4], 'last_seq')
local current_hash = redis.call('HGET', KEYS[4], 'last_hash')
if current then current = tonumber(current) end

local function check(command_id, expected, at_hash, creating)
  if creating then
    if current then return {'exists'} end
    return nil
  end
  if not current then return {'missing'} end
  local previous = redis.call('HGET', KEYS[2], command_id)
  if previous then return {'dup', previous} end
  if current ~= expected or current_hash ~= at_hash then
    return {'conflict', tostring(current)}
  end
  return nil
end

local replies = {}
local creating = ARGV[1] == 'create'
local stopped = false
local moved = false
local i = 2
while i <= #ARGV do
  local command_id, expected, at_hash = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local record, last_hash = ARGV[i + 3], ARGV[i + 4]
  local k, m = tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6])
  local meta_at, events_at = i + 7, i + 7 + 2 * k
  i = events_at + m
  local refused = nil
  if stopped then refused = {'skipped'} else refused = check(command_id, expected, at_hash, creating) end
  if refused then
    stopped = true
    table.insert(replies, refused)
  else
    for j = 0, m - 1 do
      redis.call('XADD', KEYS[1], (expected + j + 1) .. '-0', 'e', ARGV[events_at + j])
    end
    for j = meta_at, events_at - 1, 2 do
      redis.call('HSET', KEYS[4], ARGV[j], ARGV[j + 1])
    end
    if m > 0 then
      current, current_hash, moved = expected + m, last_hash, true
    end
    redis.call('HSET', KEYS[2], command_id, record)
    redis.call('XADD', KEYS[3], '*', 'id', command_id, 'r', record)
    table.insert(replies, {'ok', expected + 1, expected + m})
    creating = false
  end
end
if moved then
  redis.call('HSET', KEYS[4], 'last_seq', current, 'last_hash', current_hash)
end
return replies
