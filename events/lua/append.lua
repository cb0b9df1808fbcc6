-- Append all of one command's events and record its result, atomically.
-- KEYS[1] = event stream        hm:{g:<id>}:events
-- KEYS[2] = results hash        hm:{g:<id>}:results
-- KEYS[3] = command log stream  hm:{g:<id>}:commands
-- KEYS[4] = meta hash           hm:{g:<id>}:meta
-- ARGV[1] = command id
-- ARGV[2] = expected seq: the seq the decision was made on; -1 creates the game (meta must not exist)
-- ARGV[3] = the chain hash at the expected seq: a decision made on another history is refused too
-- ARGV[4] = the command's result record (msgpack)
-- ARGV[5] = the chain hash after the last event ("" when no event is appended)
-- ARGV[6] = k, the number of meta field/value pairs that follow
-- ARGV[7 .. 6+2k] = meta field/value pairs to set (status, or the whole header on create)
-- ARGV[7+2k ..] = the envelopes (msgpack), for seq expected+1, expected+2, ...
-- Returns {"ok", first_seq, last_seq} | {"dup", recorded result} | {"conflict", current seq}
--       | {"missing", ""} when the game does not exist | {"exists", ""} when creating an existing game.
local expected = tonumber(ARGV[2])
local current = redis.call('HGET', KEYS[4], 'last_seq')
if expected == -1 then
  if current then return {'exists', ''} end
  current = 0
  expected = 0
else
  if not current then return {'missing', ''} end
  local previous = redis.call('HGET', KEYS[2], ARGV[1])
  if previous then return {'dup', previous} end
  current = tonumber(current)
  if current ~= expected then return {'conflict', tostring(current)} end
  if redis.call('HGET', KEYS[4], 'last_hash') ~= ARGV[3] then return {'conflict', tostring(current)} end
end
local k = tonumber(ARGV[6])
local first_event = 7 + 2 * k
local seq = expected
for i = first_event, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[1], seq .. '-0', 'e', ARGV[i])
end
for i = 7, 6 + 2 * k, 2 do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
end
if seq > expected then
  redis.call('HSET', KEYS[4], 'last_seq', seq, 'last_hash', ARGV[5])
elseif expected == 0 then
  redis.call('HSET', KEYS[4], 'last_seq', 0)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('XADD', KEYS[3], '*', 'id', ARGV[1], 'r', ARGV[4])
return {'ok', expected + 1, seq}
