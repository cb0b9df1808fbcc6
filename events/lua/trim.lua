-- Trim an inbox partition of what no consumer needs any more.
-- KEYS[1] = inbox partition stream; ARGV[1] = consumer group.
-- Trimming below the oldest entry still pending (or past the group's last delivered entry, if none is
-- pending) costs far less than deleting each acknowledged entry: a group delivers in order, so every
-- entry under that point was delivered, and as it is not pending it was acknowledged.

local pending = redis.call('XPENDING', KEYS[1], ARGV[1])
if pending[1] > 0 then
  return redis.call('XTRIM', KEYS[1], 'MINID', pending[2])
end
for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local fields = {}
  for n = 1, #group, 2 do fields[group[n]] = group[n + 1] end
  if fields['name'] == ARGV[1] then
    local ms, seq = string.match(fields['last-delivered-id'], '^(%d+)-(%d+)$')
    return redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. (tonumber(seq) + 1))
  end
end
return 0
