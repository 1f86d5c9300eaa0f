
local function checkName(name)
  if type(name) ~= 'string' or #name == 0 or #name > MAX_NAME_BYTES or match(name, '[{}]') then
    fail(format("the key argument must be the filter's name: 1 to %d bytes without '{' or '}', got %s", MAX_NAME_BYTES, show(name)))
  end
  return name
end

local function hexOf(generation) return format('%08x', generation) end

-- The meta hash's fields a call reads, in one HMGET; the last, `count`, changes with every add and is not part of
-- what the checks below are a function of.
local META_FIELDS = { 'format', 'kind', 'seed', 'bits', 'hashes', 'counterBits', 'capacity', 'fpr', 'shards',
  'shardBlocks', 'growth', 'tightening', 'exceptions', 'duration', 'generation', 'state', 'ageSlices', 'sliceBits',
  'generationKeys', 'period', 'shapes', 'table', 'fuse', 'count' }
local CHECKED_FIELDS = #META_FIELDS - 1

-- Checked metas by name, each with the field values it was checked from: a call whose hash holds the same values
-- skips the checks (they are a function of the values). At most MAX_CACHED names; then it starts afresh.
local MAX_CACHED = 1000
local checked, checkedCount = {}, 0

local checkMeta

-- The sub-filters of a scalable filter from its meta hash's `shapes`, checked as decodeChainShapes of
-- @bloomkit/redis checks them (any client can write the hash): one m:k per sub-filter, 1 to 512 of them, k in
-- [1, 64], m a multiple of k in [k, 2^32], each a sub-filter the schedule can hold. Each sub-filter: m, k, its
-- capacity c_j, bytes, Redis key and the shape its positions are computed with (partitioned: k slices of m / k).
local function readShapes(meta, f, bad)
  local text = f.shapes
  if text == nil then
    fail(format('%s is a scalable filter without its shapes in %s (made by an older @bloomkit/redis): export and import it again to use it here', meta.name, metaKey(meta.name)))
  end
  if #text > MAX_SUB_FILTERS * 24 then bad('shapes', 'at most 512 entries m:k') end
  local subs = {}
  for entry in string.gmatch(text .. ' ', '([^ ]*) ') do
    if #subs == MAX_SUB_FILTERS then bad('shapes', 'at most 512 entries m:k') end
    local mText, kText = match(entry, '^(%d+):(%d+)$')
    local k = integer(kText, 1, MAX_HASHES)
    local m = k and integer(mText, k, TWO32)
    if m == nil or m % k ~= 0 then
      fail(format('meta field shapes of %s: entry %d must be m:k with k in [1, %d] and m a multiple of k in [k, 2^32], got %s', metaKey(meta.name), #subs, MAX_HASHES, show(entry)))
    end
    subs[#subs + 1] = { m = m, k = k }
  end
  local held = 0
  eachSubFilter(meta.capacity, meta.fpr, meta.growth, meta.tightening, function(j, c)
    if j >= #subs then return false end
    subs[j + 1].capacity = c
    held = j + 1
  end)
  if held < #subs then
    fail(format('meta field shapes of %s lists sub-filter %d, which the schedule cannot hold', metaKey(meta.name), held))
  end
  local g = hexOf(meta.generation)
  for j, one in ipairs(subs) do
    local s = one.m / one.k
    one.bytes = ceil(one.m / 8)
    one.key = format('bloomkit:{%s}:sub:%d:%s', meta.name, j - 1, g)
    one.shape = { seed = meta.seed, k = one.k, sigma = s / TWO32, stride = s }
  end
  return subs
end

-- Reads and checks the meta hash of `name` as @bloomkit/redis's decodeParams does (any client can write the hash,
-- and what it says is about to be looped over): every field within its range and consistent with the others.
-- Returns nil when there is no hash. The hash's `count` is read in the same HMGET, into meta.countText (checkedCount).
local function readMeta(name)
  local key = metaKey(name)
  local values = call('HMGET', key, spread(META_FIELDS))
  local parts = {}
  for i = 1, CHECKED_FIELDS do parts[i] = values[i] or '\1' end
  local signature = table.concat(parts, '\0')
  local hit = checked[name]
  if hit ~= nil and hit.signature == signature then
    hit.meta.countText = values[#META_FIELDS] or nil
    return hit.meta
  end
  local f = {}
  local any = false
  for i = 1, CHECKED_FIELDS do
    if values[i] then f[META_FIELDS[i]] = values[i]; any = true end
  end
  if not any and call('EXISTS', key) == 0 then return nil end
  local meta = checkMeta(name, f)
  meta.countText = values[#META_FIELDS] or nil
  if checkedCount >= MAX_CACHED then checked, checkedCount = {}, 0 end
  checked[name] = { signature = signature, meta = meta }
  checkedCount = checkedCount + 1
  return meta
end

-- The count readMeta read with the meta, checked (base.lua's checkCount).
local function metaCount(meta)
  return checkCount(meta.name, meta.countText)
end

-- A window (ring): k + l slices of sliceBits in one string, g keys a generation, a period for a time window.
local function checkRing(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  if f.ageSlices == nil or f.sliceBits == nil or f.generationKeys == nil or f.period == nil then
    fail(format('%s is a window filter without its shape in %s (made by an older @bloomkit/redis): export and import it again to use it here', meta.name, metaKey(meta.name)))
  end
  meta.l = int('ageSlices', 1, MAX_AGE_SLICES)
  meta.h = meta.k + meta.l
  meta.sliceBits = int('sliceBits', 8, floor(TWO32 / meta.h))
  if meta.sliceBits % 8 ~= 0 then bad('sliceBits', 'a multiple of 8') end
  meta.m = int('bits', meta.h * meta.sliceBits, meta.h * meta.sliceBits)
  meta.g = int('generationKeys', 1, MAX_SAFE)
  meta.duration = int('duration', 0, MAX_SAFE)
  meta.period = tonumber(f.period)
  if meta.period == nil or not (meta.period >= 0 and meta.period <= MAX_SAFE) or (meta.period == 0) ~= (meta.duration == 0) then
    bad('period', 'a number of ms, 0 exactly for a count window')
  end
  if meta.duration == 0 and f.period ~= '0' then bad('period', '0 for a count window') end
  if meta.exceptions then bad('exceptions', '0 for a window filter (exceptions live beside bits)') end
  -- The window W and its generations: g = ceil(W / b), b the generations of keys it keeps (l, or l less the
  -- clock's ceil((l + 1) / 2) for a time window), as @bloomkit/window sizes it; the period is the duration over
  -- the clock's share. (The rest of the sizing, s and k for fpr, takes log1p and expm1, which this Lua lacks:
  -- the Node client checks those against capacity and fpr.)
  local window = int('capacity', 1, MAX_SAFE)
  if rate(f.fpr) == nil then bad('fpr', 'a number in (0, 1)') end
  local clockShare = meta.duration > 0 and ceil((meta.l + 1) / 2) or 0
  local b = meta.l - clockShare
  if b < 1 then bad('ageSlices', 'at least 3 for a time window') end
  if meta.g ~= ceil(window / b) then bad('generationKeys', format('%.0f, ceil(capacity / %d)', ceil(window / b), b)) end
  if meta.duration > 0 and meta.period ~= meta.duration / clockShare then
    bad('period', format('%.17g, duration / %d', meta.duration / clockShare, clockShare))
  end
  -- One position per slice: the partitioned layout over k + l slices of s bits.
  meta.shape = { seed = meta.seed, k = meta.h, sigma = meta.sliceBits / TWO32, stride = meta.sliceBits }
end

-- A blocked filter: blocks of 512 bits spread over shards of shardBlocks blocks each.
local function checkShards(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  meta.m = int('bits', BLOCK_BITS, MAX_BLOCKED_BITS)
  if meta.m % BLOCK_BITS ~= 0 then bad('bits', 'a multiple of 512') end
  local blocks = meta.m / BLOCK_BITS
  meta.shardBlocks = int('shardBlocks', 1, min(blocks, TWO32 / BLOCK_BITS))
  meta.shards = int('shards', 1, MAX_SHARDS)
  if meta.shards ~= ceil(blocks / meta.shardBlocks) then
    bad('shards', format('%.0f, the shards that %.0f blocks of %.0f per shard need', ceil(blocks / meta.shardBlocks), blocks, meta.shardBlocks))
  end
  meta.shape = { seed = meta.seed, k = meta.k, sigma = BLOCK_BITS / TWO32, stride = 0 }
end

-- A scalable filter: a chain of partitioned sub-filters whose shapes the meta hash lists.
local function checkChain(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  if meta.exceptions then bad('exceptions', '0 for a scalable filter (exceptions live beside bits)') end
  meta.growth = decimal(f.growth, MIN_GROWTH, MAX_GROWTH)
  if meta.growth == nil then bad('growth', format('a number in [%s, %s]', MIN_GROWTH, MAX_GROWTH)) end
  meta.tightening = rate(f.tightening)
  if meta.tightening == nil then bad('tightening', 'a number in (0, 1)') end
  meta.capacity = int('capacity', 1, MAX_SAFE)
  meta.fpr = rate(f.fpr)
  if meta.fpr == nil then bad('fpr', 'a number in (0, 1)') end
  meta.subs = readShapes(meta, f, bad)
  local first = meta.subs[1]
  meta.m = int('bits', first.m, first.m)
  if meta.k ~= first.k then bad('hashes', format('%d, the k of sub-filter 0 in shapes', first.k)) end
  meta.shape = first.shape
end

-- A counting filter: 4- or 8-bit counters, the guard after them.
local function checkCounters(meta, f, int, bad)
  meta.width = int('counterBits', 4, 8)
  if meta.width ~= 4 and meta.width ~= 8 then bad('counterBits', 'one of 4, 8') end
  if meta.exceptions then bad('exceptions', '0 for a counting filter (exceptions live beside bits)') end
  meta.m = int('bits', 1, floor((TWO32 - 8 * GUARD_BYTES) / meta.width)) -- the guard follows, below bit 2^32
  meta.shape = { seed = meta.seed, k = meta.k, sigma = meta.m / TWO32, stride = 0 }
end

-- A cuckoo filter: n buckets of b slots of f bits, at most `kicks` a walk (the hash's `table`, f:b:n:kicks), two
-- buckets a key (`hashes` 2), the guard after the table.
local function checkCuckoo(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  if meta.exceptions then bad('exceptions', '0 for a cuckoo filter (exceptions live beside bits)') end
  local fText, bText, nText, kText = match(f.table or '', '^(%d+):(%d+):(%d+):(%d+)$')
  local fb, b = integer(fText, 4, 24), integer(bText, 2, 8)
  local n, kicks = integer(nText, 1, cuckoo.MAX_BUCKETS), integer(kText, 1, 65535)
  if fb == nil or n == nil or kicks == nil or (b ~= 2 and b ~= 4 and b ~= 8) then
    bad('table', 'f:b:n:kicks with f in [4, 24], b one of 2, 4, 8, n in [1, 2^31 - 1] and kicks in [1, 65535]')
  end
  if ceil(n * b * fb / 8) * 8 > TWO32 - 8 * GUARD_BYTES then
    bad('table', 'a table of at most 2^32 - 32 bits (one Redis string, the guard after it)')
  end
  meta.m = int('bits', n * b * fb, n * b * fb)
  if meta.k ~= 2 then bad('hashes', '2 (the buckets of a key)') end
  if f.capacity == '' or f.fpr == '' then bad('capacity', 'the capacity a cuckoo filter was sized for') end
  meta.f, meta.b, meta.n, meta.kicks = fb, b, n, kicks
end

-- A binary fuse filter: its fingerprint bits and mixing seed in `fuse` (f:seed, 16 lowercase hex digits), its
-- segments from `capacity`, the keys it was built from (fuse.lua's layout); three slots a key, a rate of 2^-f.
local function checkFuse(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  if meta.exceptions then bad('exceptions', '0 for a fuse filter (exceptions live beside bits)') end
  local fText, seedText = match(f.fuse or '', '^(%d+):(%x+)$')
  if (fText ~= '8' and fText ~= '16') or seedText == nil or #seedText ~= 16 or match(seedText, '%u') then
    bad('fuse', 'f:seed with f 8 or 16 and the seed in 16 lowercase hex digits')
  end
  local fb = tonumber(fText)
  local s = fuse.shape(fb, int('capacity', 1, TWO32 - 1), seedText)
  if s.bits + 8 * GUARD_BYTES > TWO32 then bad('capacity', 'a set whose fingerprints fit one Redis string') end
  meta.m = int('bits', s.bits, s.bits)
  if meta.k ~= 3 then bad('hashes', '3 (the slots of a key)') end
  if rate(f.fpr) ~= 2 ^ -fb then bad('fpr', format('%s (2^-%d)', exact(2 ^ -fb), fb)) end
  meta.fuse = s
end

-- A standard or partitioned filter: m bits (a multiple of the layout's unit), the guard after them.
local function checkBits(meta, f, int, bad)
  meta.width = int('counterBits', 0, 0)
  meta.m = int('bits', 1, TWO32 - 8 * GUARD_BYTES) -- the guard follows, below bit 2^32
  local unit = meta.kind.unit(meta.k)
  if meta.m % unit ~= 0 then bad('bits', format("a multiple of %d (the layout's unit with k = %d)", unit, meta.k)) end
  local range = meta.kind.sliced and meta.m / meta.k or meta.m
  meta.shape = { seed = meta.seed, k = meta.k, sigma = range / TWO32, stride = meta.kind.sliced and range or 0 }
end

-- Each storage family's own checks, by the family its kind names (sizing.lua).
local STORAGE_CHECKS = { ring = checkRing, shards = checkShards, chain = checkChain, counters = checkCounters,
  bits = checkBits, cuckoo = checkCuckoo, fuse = checkFuse }

-- The fields every family has, each within its range, and those a family does not use at their empty values.
local function checkCommon(meta, f, int, bad)
  local storage = meta.kind.storage
  if f.capacity ~= '' or f.fpr ~= '' then
    meta.capacity = int('capacity', 1, MAX_SAFE)
    meta.fpr = rate(f.fpr)
    if meta.fpr == nil then bad('fpr', 'a number in (0, 1)') end
  end
  if storage ~= 'shards' then
    int('shards', 1, 1)
    int('shardBlocks', 0, 0)
  end
  if storage ~= 'chain' then
    int('growth', 0, 0)
    int('tightening', 0, 0)
  end
  if f.duration ~= nil and storage ~= 'ring' then int('duration', 0, 0) end
end

-- The checks of readMeta, on the fields `f` of the hash of `name`; returns the filter's description.
checkMeta = function(name, f)
  local function bad(field, range) badMeta(name, field, range, f[field]) end
  local function int(field, min, max)
    local value = integer(f[field], min, max)
    if value == nil then bad(field, format('an integer in [%.0f, %.0f]', min, max)) end
    return value
  end
  if f.format ~= FORMAT_TAG then fail(format('the key %s is not a bloomkit filter (format field %s)', metaKey(name), show(f.format))) end
  local kind = KINDS[f.kind]
  if kind == nil then bad('kind', 'one of ' .. SERVED) end
  local meta = { name = name, hash = metaKey(name), kindName = f.kind, kind = kind, fields = f }
  meta.generation = int('generation', 1, TWO32 - 1)
  -- Written without leading zeros, and compared as text by the Node client's scripts.
  if sub(f.generation, 1, 1) == '0' then bad('generation', 'an integer in [1, 4294967295] without leading zeros') end
  meta.seed = int('seed', 0, TWO32 - 1)
  meta.k = int('hashes', 1, MAX_HASHES)
  meta.exceptions = f.exceptions ~= nil and int('exceptions', 0, 1) == 1
  STORAGE_CHECKS[kind.storage](meta, f, int, bad)
  checkCommon(meta, f, int, bad)
  meta.ready = f.state == 'ready'
  meta.bytes = ceil(meta.m * max(1, meta.width) / 8)
  local g = hexOf(meta.generation)
  meta.data = 'bloomkit:{' .. name .. '}:data:' .. g
  meta.set = 'bloomkit:{' .. name .. '}:exceptions:' .. g
  return meta
end

-- The filter `name`, ready and whole: its meta checked, and its storage string holding the guard (the generation,
-- big-endian, right after the payload: guard.ts of @bloomkit/redis), so a filter that expired or was dropped is
-- never written to nor read as empty.
local function openFilter(name, metaOnly)
  local meta = readMeta(checkName(name))
  if meta == nil then gone(name) end
  if not meta.ready then fail(name .. ' is still being created; try again') end
  local storage = meta.kind.storage
  if storage == 'shards' then
    if metaOnly then return meta end
    fail(format('%s is a blocked filter, spread over %.0f shards in other slots: send each item to its shard with bk_shard_madd or bk_shard_mexists (1 key: %s/SHARD; the shard rule is in the README of @bloomkit/redis)', name, meta.shards, name))
  end
  -- A window's string and a chain's sub-filters have no guard: their keys hold the generation that readMeta read, and
  -- their lengths are the meta's. A key gone (evicted, deleted) is the filter gone: never recreated empty, which
  -- would answer "new" for keys acknowledged before (the chain's sub-filters are checked by readChain).
  if storage == 'ring' then
    if call('STRLEN', meta.data) ~= meta.bytes then gone(name, 'its ring ' .. meta.data .. ' is gone or not its size') end
    return meta
  end
  if storage == 'chain' then return meta end
  if call('BITFIELD_RO', meta.data, 'GET', 'u32', meta.bytes * 8)[1] ~= meta.generation then gone(name) end
  return meta
end
