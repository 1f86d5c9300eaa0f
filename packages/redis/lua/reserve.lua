local FIELD_ORDER = { 'format', 'kind', 'seed', 'bits', 'hashes', 'counterBits', 'capacity', 'fpr', 'shards',
  'shardBlocks', 'growth', 'tightening', 'exceptions', 'duration' }

-- Parses `KIND CAPACITY FPR` style options from args[from..to] (reserve: positional first; insert: named).
local function plan(where, o)
  local kind = KINDS[o.kind]
  if kind == nil or not kind.creates then
    if kind ~= nil then fail(format('%s: kind %s is created by @bloomkit/redis or bloomkit push; the functions create %s', where, o.kind, KIND_NAMES)) end
    fail(format('%s: KIND must be one of %s, got %s', where, KIND_NAMES, show(o.kind)))
  end
  local capacity = argInteger(where, 'CAPACITY', o.capacity, 1, MAX_SAFE)
  local fpr = rate(o.fpr)
  if fpr == nil then fail(format('%s: %s must be a number in (0, 1), got %s', where, o.fprName or 'FPR', show(o.fpr))) end
  local seed = 0
  if o.seed ~= nil then seed = argInteger(where, 'SEED', o.seed, 0, TWO32 - 1) end
  local width = 0
  if kind.storage == 'counters' then
    width = 4
    if o.width ~= nil then
      width = argInteger(where, 'COUNTERBITS', o.width, 4, 8)
      if width ~= 4 and width ~= 8 then fail(format('%s: COUNTERBITS must be one of 4, 8, got %s', where, show(o.width))) end
    end
  elseif o.width ~= nil then
    fail(format('%s: COUNTERBITS applies to a counting filter, not %s', where, o.kind))
  end
  local b = 4
  if kind.storage == 'cuckoo' then
    if o.bucketSize ~= nil then
      b = argInteger(where, 'BUCKETSIZE', o.bucketSize, 2, 8)
      if b ~= 2 and b ~= 4 and b ~= 8 then fail(format('%s: BUCKETSIZE must be one of 2, 4, 8, got %s', where, show(o.bucketSize))) end
    end
    if capacity > floor(cuckoo.MAX_BUCKETS * b * cuckoo.LOAD[b]) then
      fail(format('%s: CAPACITY must be at most %.0f for buckets of %d, got %.0f', where, floor(cuckoo.MAX_BUCKETS * b * cuckoo.LOAD[b]), b, capacity))
    end
  elseif o.bucketSize ~= nil then
    fail(format('%s: BUCKETSIZE applies to a cuckoo filter, not %s', where, o.kind))
  end
  if o.exceptions and kind.storage ~= 'bits' then
    fail(format('%s: EXCEPTIONS live beside bits: KIND must be standard or partitioned, not %s', where, o.kind))
  end
  local growth, tightening, shapes = '0', '0', nil
  if kind.storage == 'chain' then
    local g, r = DEFAULT_GROWTH, DEFAULT_TIGHTENING
    if o.growth ~= nil then
      g = decimal(o.growth, MIN_GROWTH, MAX_GROWTH)
      if g == nil then fail(format('%s: GROWTH must be a number in [%s, %s], got %s', where, MIN_GROWTH, MAX_GROWTH, show(o.growth))) end
    end
    if o.tightening ~= nil then
      r = rate(o.tightening)
      if r == nil then fail(format('%s: TIGHTENING must be a number in (0, 1), got %s', where, show(o.tightening))) end
    end
    local count
    shapes, count = chainShapes(capacity, fpr, g, r)
    if count == 0 then
      fail(format('%s: the first sub-filter of a scalable filter of CAPACITY %.0f at FPR %s needs more than a Redis string (512 MB); use a larger FPR or a smaller CAPACITY', where, capacity, exact(fpr)))
    end
    growth, tightening = exact(g), exact(r)
  elseif o.growth ~= nil or o.tightening ~= nil then
    fail(format('%s: %s applies to a scalable filter, not %s', where, o.growth ~= nil and 'GROWTH' or 'TIGHTENING', o.kind))
  end
  local bits, k, table_
  if shapes ~= nil then bits, k = match(shapes, '^(%d+):(%d+)'); bits, k = tonumber(bits), tonumber(k)
  elseif kind.storage == 'cuckoo' then
    local f, n = cuckoo.size(capacity, fpr, b)
    if f == nil then
      fail(format('%s: FPR must be at least %s for a cuckoo filter with buckets of %d (24-bit fingerprints), got %s', where, exact(cuckoo.rate(24, b, cuckoo.LOAD[b])), b, exact(fpr)))
    end
    bits, k, table_ = n * b * f, 2, format('%d:%d:%.0f:%d', f, b, n, cuckoo.KICKS)
  else bits, k = chooseShape(kind, capacity, fpr) end
  if bits == nil or bits * max(1, width) > (MAX_STRING_BYTES - GUARD_BYTES) * 8 then
    fail(format('%s: a %s filter of CAPACITY %.0f at FPR %s needs more than a Redis string (512 MB); use a larger FPR or a smaller CAPACITY',
      where, o.kind, capacity, exact(fpr)))
  end
  return {
    format = FORMAT_TAG, kind = o.kind, seed = format('%.0f', seed), bits = format('%.0f', bits), hashes = tostring(k),
    counterBits = tostring(width), capacity = format('%.0f', capacity), fpr = exact(fpr), shards = '1',
    shardBlocks = '0', growth = growth, tightening = tightening, exceptions = o.exceptions and '1' or '0',
    duration = '0', shapes = shapes, table = table_,
  }
end

-- The first parameter in which an existing filter differs from the planned one, or nil: kind, seed, counters,
-- exceptions, and the capacity and rate it was sized for (as numbers). Not m and k: a creator that sized the same
-- capacity and rate with another libm may have picked m one unit apart (see the sizing above).
local function difference(meta, planned)
  local f = meta.fields
  if f.kind ~= planned.kind then return format('kind %s vs %s', f.kind, planned.kind) end
  if meta.seed ~= tonumber(planned.seed) then return format('seed %.0f vs %s', meta.seed, planned.seed) end
  if meta.width ~= tonumber(planned.counterBits) then return format('counterBits %d vs %s', meta.width, planned.counterBits) end
  if (meta.exceptions and '1' or '0') ~= planned.exceptions then return 'exceptions' end
  if meta.capacity == nil then return 'capacity: the filter was built from bits and hashes' end
  if meta.capacity ~= tonumber(planned.capacity) then return format('capacity %.0f vs %s', meta.capacity, planned.capacity) end
  if meta.fpr ~= tonumber(planned.fpr) then return format('fpr %s vs %s', exact(meta.fpr), planned.fpr) end
  if planned.table ~= nil and meta.b ~= tonumber(match(planned.table, '^%d+:(%d+):')) then
    return format('bucketSize %d vs %s', meta.b, match(planned.table, '^%d+:(%d+):'))
  end
  if tonumber(f.growth) ~= tonumber(planned.growth) then return format('growth %s vs %s', f.growth, planned.growth) end
  if tonumber(f.tightening) ~= tonumber(planned.tightening) then
    return format('tightening %s vs %s', f.tightening, planned.tightening)
  end
  return nil
end

-- A new filter's generation: a number in [1, 2^32 - 1] from the server's clock (microseconds) and the name, so a
-- filter dropped and created again gets other storage keys (keys.ts of @bloomkit/redis).
local function newGeneration(name)
  local t = call('TIME')
  local h1, h2 = murmur(name .. ':' .. t[1] .. ':' .. t[2], tonumber(t[2]))
  local g = bxor(h1, h2) % TWO32
  if g == 0 then g = 1 end
  return g
end

-- The bytes a planned filter's storage takes (a scalable filter's: its first sub-filter).
local function reservedBytes(planned)
  return ceil(tonumber(planned.bits) * max(1, tonumber(planned.counterBits)) / 8)
end

-- Creates the filter planned, or opens one of that name with the same parameters; fails on one with others.
-- The storage is written before the meta hash, so a server without the memory leaves nothing behind. Its
-- allocation is within the call budget: a larger filter is made by @bloomkit/redis (see chargeClear).
local function reserve(where, name, planned)
  local existing = readMeta(name)
  if existing ~= nil then
    local why = difference(existing, planned)
    if why ~= nil then fail(format('%s: a filter named %s exists with other parameters (%s)', where, name, why)) end
    return false
  end
  local bytes = reservedBytes(planned)
  chargeClear(where, bytes, 0, format('a filter of %s bits', planned.bits))
  local generation = newGeneration(name)
  local g = hexOf(generation)
  local fields = {}
  for _, field in ipairs(FIELD_ORDER) do
    fields[#fields + 1] = field
    fields[#fields + 1] = planned[field]
  end
  if planned.shapes ~= nil then
    -- A scalable filter: sub-filter 0, zeroed, no guard (its key holds the generation).
    local first = 'bloomkit:{' .. name .. '}:sub:0:' .. g
    call('DEL', first)
    call('SETRANGE', first, bytes - 1, '\0')
    fields[#fields + 1] = 'shapes'; fields[#fields + 1] = planned.shapes
    fields[#fields + 1] = 'filters'; fields[#fields + 1] = '1'
    fields[#fields + 1] = 'count:0'; fields[#fields + 1] = '0'
  else
    local data = 'bloomkit:{' .. name .. '}:data:' .. g
    call('DEL', data)
    call('SETRANGE', data, bytes, char(floor(generation / 16777216), floor(generation / 65536) % 256, floor(generation / 256) % 256, generation % 256))
  end
  if planned.table ~= nil then fields[#fields + 1] = 'table'; fields[#fields + 1] = planned.table end
  fields[#fields + 1] = 'generation'; fields[#fields + 1] = format('%.0f', generation)
  fields[#fields + 1] = 'count'; fields[#fields + 1] = '0'
  fields[#fields + 1] = 'state'; fields[#fields + 1] = 'ready'
  createMeta(metaKey(name), fields)
  return true
end

-- Verbs -------------------------------------------------------------------------------------------------------------

-- bk_reserve NAME KIND CAPACITY FPR [SEED s] [COUNTERBITS w] [GROWTH g] [TIGHTENING r] [EXCEPTIONS] -> OK
