-- Acknowledge processed entries of one inbox partition and trim what no consumer needs any more.
-- KEYS[1] = inbox partition stream; ARGV[1] = consumer group; ARGV[2..] = entry ids.
-- Trimming once below the oldest entry still pending (or past the group's last delivered entry, if none
-- is pending) costs far less than deleting each entry: a group delivers in order, so every entry under
-- that point was delivered, and as it is not pending it was acknowledged.

local acked = 0
for first = 2, #ARGV, 1000 do
  acked = acked + redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, first, math.min(first + 999, #ARGV)))
end

local pending = redis.call('XPENDING', KEYS[1], ARGV[1])
if pending[1] > 0 then
  redis.call('XTRIM', KEYS[1], 'MINID', pending[2])
  return acked
end
for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local fields = {}
  for n = 1, #group, 2 do fields[group[n]] = group[n + 1] end
  if fields['name'] == ARGV[1] then
    local ms, seq = string.match(fields['last-delivered-id'], '^(%d+)-(%d+)$')
    redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
  end
end
return acked
