-- Append leaves to the service's log and store their signed checkpoint, atomically: the one write of the
-- log (events/log_store.py). Refused unless the caller holds the sequencer's lease, the tree still has the
-- size the caller built on (compare-and-set) and the log's published key is the caller's.
-- KEYS[1] = leaves list        hm:{log}:leaves       leaf data, index = leaf index
-- KEYS[2] = lease              hm:{log}:lease        the sequencer's token
-- KEYS[3] = checkpoint         hm:{log}:checkpoint   the latest signed checkpoint note
-- KEYS[4] = checkpoints zset   hm:{log}:checkpoints  every signed note, scored by tree size
-- KEYS[5] = heads hash         hm:{log}:heads        "<stream>:<id>" -> "<seq>:<hash>"
-- KEYS[6] = open zset          hm:{log}:open         chains started and not finished, scored by start index
-- KEYS[7] = key hash           hm:{log}:key          the published origin/vkey
-- KEYS[8] = queue stream       hm:{log}:queue        leaves other writers asked for
-- KEYS[9 .. 8+L]               hm:{log}:level:<k>    node hashes of perfect subtrees, k = 0 .. L-1
-- KEYS[9+L ..]                 hm:{log}:chain:...    the chain sorted sets the leaves touch
-- ARGV[1] = lease token, ARGV[2] = expected size, ARGV[3] = the caller's vkey, ARGV[4] = checkpoint note,
-- ARGV[5] = L, ARGV[6] = leaves n, ARGV[7] = nodes m, ARGV[8] = chain entries c, ARGV[9] = head updates h,
-- ARGV[10] = open additions a, ARGV[11] = open removals r, ARGV[12] = queue entry ids q, then:
--   n leaf data; m triples (level, index, hash) in the order made; c triples (chain key number from 1,
--   score, member); h pairs (field, value); a pairs (member, score); r members; q stream ids.
-- Returns {"ok", new size} | {"lease"} | {"size", current size} | {"key", published vkey}
--   | {"node", level, index} (a node out of order: a bug, nothing written).

if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {'lease'} end
local published = redis.call('HGET', KEYS[7], 'vkey')
if published ~= ARGV[3] then return {'key', published or ''} end
local size = redis.call('LLEN', KEYS[1])
if size ~= tonumber(ARGV[2]) then return {'size', size} end

local levels = tonumber(ARGV[5])
local n, m, c = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local h, a, r, q = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12])
local at = 13

-- Every node must extend its level's list exactly: checked for all before anything is written.
local lengths, by_level = {}, {}
local nodes_at = at + n
for j = 0, m - 1 do
  local level, index = tonumber(ARGV[nodes_at + 3 * j]), tonumber(ARGV[nodes_at + 3 * j + 1])
  if level >= levels then return {'node', level, index} end
  local key = KEYS[9 + level]
  if lengths[level] == nil then lengths[level] = redis.call('LLEN', key) end
  if lengths[level] ~= index then return {'node', level, index} end
  lengths[level] = index + 1
  local list = by_level[level]
  if list == nil then list = {}; by_level[level] = list end
  list[#list + 1] = ARGV[nodes_at + 3 * j + 2]
end

-- unpack() is bounded by Lua's C stack: pushes go in slices.
local function push(key, values)
  for first = 1, #values, 1000 do
    redis.call('RPUSH', key, unpack(values, first, math.min(first + 999, #values)))
  end
end

local leaves = {}
for j = 0, n - 1 do leaves[#leaves + 1] = ARGV[at + j] end
if n > 0 then push(KEYS[1], leaves) end
for level, list in pairs(by_level) do push(KEYS[9 + level], list) end

at = nodes_at + 3 * m
for j = 0, c - 1 do
  redis.call('ZADD', KEYS[8 + levels + tonumber(ARGV[at + 3 * j])], ARGV[at + 3 * j + 1], ARGV[at + 3 * j + 2])
end
at = at + 3 * c
for j = 0, h - 1 do redis.call('HSET', KEYS[5], ARGV[at + 2 * j], ARGV[at + 2 * j + 1]) end
at = at + 2 * h
for j = 0, a - 1 do redis.call('ZADD', KEYS[6], ARGV[at + 2 * j + 1], ARGV[at + 2 * j]) end
at = at + 2 * a
for j = 0, r - 1 do redis.call('ZREM', KEYS[6], ARGV[at + j]) end
at = at + r
for j = 0, q - 1 do redis.call('XDEL', KEYS[8], ARGV[at + j]) end

local new_size = size + n
redis.call('SET', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], new_size, ARGV[4])
return {'ok', new_size}
