local function bk_reserve(keys, args)
  local where = 'bk_reserve'
  local name = checkName(keys[1])
  if #args < 3 then fail(where .. ': give KIND CAPACITY FPR [SEED s] [COUNTERBITS w] [GROWTH g] [TIGHTENING r] [BUCKETSIZE b] [EXCEPTIONS]') end
  local o = { kind = args[1], capacity = args[2], fpr = args[3] }
  local i = 4
  while i <= #args do
    local option = upper(args[i])
    if option == 'SEED' and i < #args then o.seed = args[i + 1]; i = i + 2
    elseif option == 'COUNTERBITS' and i < #args then o.width = args[i + 1]; i = i + 2
    elseif option == 'GROWTH' and i < #args then o.growth = args[i + 1]; i = i + 2
    elseif option == 'TIGHTENING' and i < #args then o.tightening = args[i + 1]; i = i + 2
    elseif option == 'BUCKETSIZE' and i < #args then o.bucketSize = args[i + 1]; i = i + 2
    elseif option == 'EXCEPTIONS' then o.exceptions = true; i = i + 1
    elseif (option == 'SEED' or option == 'COUNTERBITS' or option == 'GROWTH' or option == 'TIGHTENING' or option == 'BUCKETSIZE') and i == #args then
      fail(format('%s: %s needs a value', where, option))
    elseif option == 'DURATION' then
      fail(format("%s: DURATION applies to a window filter, which the functions do not size (a window's sizing would hold the server about a second): create it with @bloomkit/redis, or bloomkit create FILE --kind window --duration D and bloomkit push FILE redis://HOST/NAME", where))
    else fail(format('%s: unknown option %s (known: SEED s, COUNTERBITS w, GROWTH g, TIGHTENING r, BUCKETSIZE b, EXCEPTIONS)', where, show(args[i]))) end
  end
  reserve(where, name, plan(where, o))
  return { ok = 'OK' }
end

-- bk_add NAME ITEM -> 1 when the item was new (and is added), 0 when it was present
local function bk_add(keys, args)
  if #args ~= 1 then fail(format('bk_add: give one ITEM (bk_madd for more), got %d arguments', #args)) end
  local meta = openFilter(keys[1])
  return addAll('bk_add', meta, args, 1)[1]
end

-- bk_madd NAME ITEM [ITEM ...] -> an array of 1 (new, added) and 0 (present), in order
local function bk_madd(keys, args)
  items('bk_madd', args, 1)
  return addAll('bk_madd', openFilter(keys[1]), args, 1)
end

-- bk_exists NAME ITEM -> 1 when present
local function bk_exists(keys, args)
  if #args ~= 1 then fail(format('bk_exists: give one ITEM (bk_mexists for more), got %d arguments', #args)) end
  return hasAll('bk_exists', openFilter(keys[1]), args, 1)[1]
end

-- bk_mexists NAME ITEM [ITEM ...] -> an array of 1 (present) and 0
local function bk_mexists(keys, args)
  items('bk_mexists', args, 1)
  return hasAll('bk_mexists', openFilter(keys[1]), args, 1)
end

-- bk_madd_at / bk_mexists_at NAME MS TOLERANCE ITEM [ITEM ...] -> as bk_madd / bk_mexists on a time window, at the
-- caller's time MS (ms since the epoch in [0, 2^47], a fraction allowed, e.g. 1700000000000.25) rather than the server's, while MS is within TOLERANCE ms of
-- the server's TIME (TOLERANCE `inf` trusts it): further off, an error reply and nothing written. A time behind the
-- newest generation's start counts as that start, as in the Node client (its `clock` and `clockTolerance`).
local function atCallersTime(where, keys, args)
  if #args < 3 then fail(where .. ': give MS TOLERANCE ITEM [ITEM ...]') end
  items(where, args, 3)
  local meta = openFilter(keys[1])
  if meta.kind.storage ~= 'ring' or meta.period == 0 then
    fail(format("%s: %s is a %s filter; a caller's time applies to a time window (use %s)", where, meta.name,
      meta.period == 0 and 'count window' or meta.kindName, where == 'bk_madd_at' and 'bk_madd' or 'bk_mexists'))
  end
  local ms = argTime(where, 'MS', args[1])
  if args[2] ~= 'inf' then
    local tolerance = argInteger(where, 'TOLERANCE', args[2], 0, MAX_CLOCK_MS)
    local skew = ms - serverMs()
    if skew > tolerance or -skew > tolerance then
      fail(format("%s: MS is %.0f ms off the server's clock, more than TOLERANCE %.0f; nothing was written (fix the caller's clock, or use %s for the server's)",
        where, skew, tolerance, where == 'bk_madd_at' and 'bk_madd' or 'bk_mexists'))
    end
  end
  return meta, ms
end

local function bk_madd_at(keys, args)
  local meta, ms = atCallersTime('bk_madd_at', keys, args)
  return windowAdd('bk_madd_at', meta, args, 3, ms)
end

local function bk_mexists_at(keys, args)
  local meta, ms = atCallersTime('bk_mexists_at', keys, args)
  return windowHas('bk_mexists_at', meta, args, 3, ms)
end

-- bk_insert NAME [KIND k] [CAPACITY c] [ERROR e] [SEED s] [COUNTERBITS w] [GROWTH g] [TIGHTENING r] [BUCKETSIZE b]
-- [EXCEPTIONS] [NOCREATE] ITEMS ITEM... ->
-- as bk_madd, creating the filter first when it does not exist (KIND standard, CAPACITY 100, ERROR 0.01 unless
-- given; RedisBloom's defaults). With NOCREATE a missing filter is an error. An existing filter is compared with
-- the options given (not with the defaults).
local function bk_insert(keys, args)
  local where = 'bk_insert'
  local name = checkName(keys[1])
  local o = {}
  local given = false
  local noCreate = false
  local i = 1
  while i <= #args do
    local option = upper(args[i])
    if option == 'ITEMS' then break end
    local value = args[i + 1]
    if option == 'NOCREATE' then noCreate = true; i = i + 1
    elseif option == 'EXCEPTIONS' then o.exceptions = true; given = true; i = i + 1
    elseif value == nil then fail(format('%s: %s needs a value', where, show(args[i])))
    elseif option == 'KIND' then o.kind = value; given = true; i = i + 2
    elseif option == 'CAPACITY' then o.capacity = value; given = true; i = i + 2
    elseif option == 'ERROR' then o.fpr = value; given = true; i = i + 2
    elseif option == 'SEED' then o.seed = value; given = true; i = i + 2
    elseif option == 'COUNTERBITS' then o.width = value; given = true; i = i + 2
    elseif option == 'GROWTH' then o.growth = value; given = true; i = i + 2
    elseif option == 'TIGHTENING' then o.tightening = value; given = true; i = i + 2
    elseif option == 'BUCKETSIZE' then o.bucketSize = value; given = true; i = i + 2
    else fail(format('%s: unknown option %s (known: KIND, CAPACITY, ERROR, SEED, COUNTERBITS, GROWTH, TIGHTENING, BUCKETSIZE, EXCEPTIONS, NOCREATE, ITEMS)', where, show(args[i]))) end
  end
  if i > #args then fail(where .. ': give ITEMS and at least one ITEM') end
  items(where, args, i + 1)
  if noCreate and given then fail(where .. ': NOCREATE opens a filter; it takes no sizing options') end
  if not noCreate then
    o.kind = o.kind or 'standard'
    o.capacity = o.capacity or '100'
    o.fpr = o.fpr or '0.01'
    o.fprName = 'ERROR'
    local planned = plan(where, o)
    local existing = readMeta(name)
    if existing == nil then
      -- Priced before the filter is made: its allocation, and the add into it (a new chain may grow once more).
      local k = tonumber(planned.hashes)
      charge(where, args, i + 1, 2 * (k + 1 + CALL_UNITS), clearUnits(reservedBytes(planned)), format('%d positions', k))
      reserve(where, name, planned)
    elseif given then
      local why = difference(existing, planned)
      if why ~= nil then fail(format('%s: a filter named %s exists with other parameters (%s)', where, name, why)) end
    end
  end
  return addAll(where, openFilter(name), args, i + 1)
end

-- bk_card NAME -> the number of items added (adds that changed the filter; net of deletes for counting)
local function bk_card(keys, args)
  if #args ~= 0 then fail('bk_card: takes no arguments') end
  return metaCount(openFilter(keys[1], true))
end

-- bk_info NAME -> field/value pairs: RedisBloom's (Capacity, Size, Number of filters, Number of items inserted,
-- Expansion rate) then bloomkit's (Kind, Bits, Hashes, Seed, Error rate, Counter bits, Exceptions, Generation, ...)
local function bk_info(keys, args)
  if #args ~= 0 then fail('bk_info: takes no arguments') end
  local meta = openFilter(keys[1], true)
  local exceptions = 0
  local sharded = meta.kind.storage == 'shards'
  if meta.exceptions and not sharded then exceptions = call('SCARD', meta.set) end
  -- A scalable filter's capacity and size are its sub-filters' sums, as RedisBloom's BF.INFO gives them.
  local capacity, size, filters, growth = meta.capacity or 0, meta.bytes, 1, 0
  if meta.kind.storage == 'chain' then
    filters = readChain(meta, #meta.subs)
    capacity, size, growth = 0, 0, exact(meta.growth)
    for j = 1, filters do capacity, size = capacity + meta.subs[j].capacity, size + meta.subs[j].bytes end
  end
  local storageKey = meta.data
  if sharded then storageKey = format('bloomkit:{%s/SHARD}:shard:%s', meta.name, hexOf(meta.generation)) end
  if meta.kind.storage == 'chain' then storageKey = format('bloomkit:{%s}:sub:J:%s', meta.name, hexOf(meta.generation)) end
  local info = {
    'Capacity', capacity,
    'Size', size,
    'Number of filters', filters,
    'Number of items inserted', metaCount(meta),
    'Expansion rate', growth,
    'Kind', meta.kindName,
    'Bits', meta.m,
    'Hashes', meta.k,
    'Seed', meta.seed,
    'Error rate', meta.fpr and exact(meta.fpr) or '',
    'Counter bits', meta.width,
    'Exceptions', meta.exceptions and (sharded and 'in each shard' or exceptions) or -1,
    'Generation', meta.generation,
    'Storage key', storageKey,
    'Shards', sharded and meta.shards or 1,
    'Shard blocks', sharded and meta.shardBlocks or 0,
    'Tightening', meta.tightening and exact(meta.tightening) or 0,
    'Functions version', VERSION,
  }
  if meta.kind.storage == 'cuckoo' then
    -- RedisBloom's CF.INFO names, then the fingerprint's bits.
    for _, v in ipairs({ 'Number of buckets', meta.n, 'Bucket size', meta.b, 'Max iterations', meta.kicks,
      'Fingerprint bits', meta.f }) do info[#info + 1] = v end
  end
  if meta.kind.storage == 'fuse' then
    -- The segments and the mixing seed of the fixed set (BinaryFuseFilter's reference()).
    local s = meta.fuse
    for _, v in ipairs({ 'Fingerprint bits', s.f, 'Segment length', s.L, 'Segment count', s.cL / s.L,
      'Fuse seed', meta.fields.fuse:sub(-16) }) do info[#info + 1] = v end
  end
  return info
end

local function counting(where, meta)
  if meta.width == 0 and meta.kind.storage ~= 'cuckoo' then
    fail(format('%s: %s is a %s filter; deletes need counters or fingerprints (a counting or cuckoo filter)', where, meta.name, meta.kindName))
  end
  return meta
end

-- bk_del NAME ITEM -> 1 when deleted, 0 when absent (nothing changed). Counting and cuckoo filters.
local function bk_del(keys, args)
  if #args ~= 1 then fail(format('bk_del: give one ITEM (bk_mdel for more), got %d arguments', #args)) end
  return deleteItems('bk_del', counting('bk_del', openFilter(keys[1])), args, 1)[1]
end

-- bk_mdel NAME ITEM [ITEM ...] -> an array of 1 (deleted) and 0 (absent)
local function bk_mdel(keys, args)
  items('bk_mdel', args, 1)
  return deleteItems('bk_mdel', counting('bk_mdel', openFilter(keys[1])), args, 1)
end

local function withExceptions(where, meta)
  if not meta.exceptions then fail(format('%s: %s was created without EXCEPTIONS', where, meta.name)) end
  return meta
end

-- bk_except NAME ITEM [ITEM ...] -> per item 1 when listed as a known false positive (it answers absent from now
-- on), 0 when the filter answers absent already or the item is listed (ExceptionFilter.addException)
local function bk_except(keys, args)
  items('bk_except', args, 1)
  local meta = withExceptions('bk_except', openFilter(keys[1]))
  charge('bk_except', args, 1, meta.k + 2 * CALL_UNITS, 0, format('%d positions', meta.k))
  exceptionSet(meta)
  local values = bitfieldOffsets(meta.data, true, 'GET', 'u1', nil, offsetsOfItems(meta, args, 1, 1, meta.k), false)
  local function holds(i) return not anyOf(values, i - 1, meta.k, 0) end
  return recordExceptions(meta.set, meta.data, #args, function(i) return args[i] end, holds)
end

-- bk_unexcept NAME ITEM [ITEM ...] -> per item 1 when it was listed (and is not any more)
local function bk_unexcept(keys, args)
  items('bk_unexcept', args, 1)
  local meta = withExceptions('bk_unexcept', openFilter(keys[1]))
  charge('bk_unexcept', args, 1, CALL_UNITS, 0, 'a set removal')
  exceptionSet(meta)
  return removeExceptions(meta.set, #args, function(i) return args[i] end)
end

-- bk_count NAME ITEM -> the copies of the item's fingerprint in its two buckets of a cuckoo filter (RedisBloom's
-- CF.COUNT): at least the copies added and not deleted (a colliding key's copies count too)
local function bk_count(keys, args)
  if #args ~= 1 then fail(format('bk_count: give one ITEM, got %d arguments', #args)) end
  local meta = openFilter(keys[1])
  if meta.kind.storage ~= 'cuckoo' then
    fail(format('bk_count: %s is a %s filter; bk_count counts the copies in a cuckoo filter', meta.name, meta.kindName))
  end
  return cuckoo.countItems('bk_count', meta, args, 1)[1]
end

-- bk_shard_count NAME GENERATION N -> the filter's count after adding N (the new items bk_shard_madd reported), while
-- NAME is still the filter of that generation
local function bk_shard_count(keys, args)
  if #args ~= 2 then fail('bk_shard_count: give GENERATION N') end
  local meta = openFilter(keys[1], true)
  local generation = argInteger('bk_shard_count', 'GENERATION', args[1], 1, TWO32 - 1)
  local n = argInteger('bk_shard_count', 'N', args[2], 0, 1000000)
  if generation ~= meta.generation then fail('no filter ' .. meta.name .. ' of generation ' .. args[1]) end
  local count = metaCount(meta)
  if n > 0 then call('HSET', metaKey(meta.name), 'count', format('%.0f', min(MAX_SAFE, count + n))) end
  return min(MAX_SAFE, count + n)
end

-- bk_positions NAME ITEM [SUB i] -> the item's k positions in the filter (docs/FORMAT.md section 5), to check a
-- client. A scalable filter's sub-filters each have their own m and k: SUB i names one of those its meta hash's
-- `shapes` lists (default 0, the first), whether or not the chain has grown into it yet. A cuckoo filter answers
-- its fingerprint and two buckets, a fuse filter its fingerprint and three slots.
local function bk_positions(keys, args)
  if #args ~= 1 and not (#args == 3 and upper(args[2]) == 'SUB') then
    fail(format('bk_positions: give ITEM [SUB i], got %d arguments', #args))
  end
  local meta = openFilter(keys[1])
  if meta.kind.storage == 'cuckoo' or meta.kind.storage == 'fuse' then
    if #args == 3 then fail(format('bk_positions: SUB applies to a scalable filter; %s is a %s filter', meta.name, meta.kindName)) end
    charge('bk_positions', { args[1] }, 1, 3, 0, 'its slots')
    local h1, h2 = murmur(args[1], meta.seed)
    -- A cuckoo filter's fingerprint and its two buckets (docs/FORMAT.md §3.9); a fuse filter's fingerprint and its
    -- three slots (§3.8).
    if meta.kind.storage == 'cuckoo' then
      return { cuckoo.key(cuckoo.view(meta.data, meta.f, meta.b, meta.n, meta.kicks, 0), h1, h2) }
    end
    local s = meta.fuse
    local high, low = fuse.mix(h2, h1, s.seedHigh, s.seedLow)
    local a, b, c = fuse.slots(s, high, low)
    return { bit.band(bxor(low, high), s.fmask), a, b, c }
  end
  local shape = meta.shape
  if #args == 3 then
    if meta.subs == nil then
      fail(format('bk_positions: SUB applies to a scalable filter; %s is a %s filter', meta.name, meta.kindName))
    end
    shape = meta.subs[argInteger('bk_positions', 'SUB', args[3], 0, #meta.subs - 1) + 1].shape
  end
  charge('bk_positions', { args[1] }, 1, shape.k, 0, format('%d positions', shape.k))
  return positions(shape, args[1], {})
end

-- bk_hash ITEM [SEED s] (no key) -> MurmurHash3 x86_128's four words h1..h4 of the item (docs/FORMAT.md section 4)
local function bk_hash(keys, args)
  if #keys ~= 0 then fail('bk_hash: takes no key (FCALL_RO bk_hash 0 ITEM [SEED s])') end
  if #args ~= 1 and not (#args == 3 and upper(args[2]) == 'SEED') then fail('bk_hash: give ITEM [SEED s]') end
  local seed = 0
  if #args == 3 then seed = argInteger('bk_hash', 'SEED', args[3], 0, TWO32 - 1) end
  charge('bk_hash', { args[1] }, 1, 0, 0, 'its hash')
  local h1, h2, h3, h4 = murmur(args[1], seed)
  return { h1, h2, h3, h4 }
end

-- bk_version (no key) -> this library's version
local function bk_version()
  return VERSION
end

-- `keys`: how many key arguments the verb takes (the filter's name, or none); another number is an error reply, so a
-- second name is never silently ignored (nor routed to another slot's node). A write verb's arguments may start
-- with ID token: the call is then applied once however often it is sent (ledger.lua), its reply kept for a resend.
local function register(name, body, readOnly, keys)
  keys = keys or 1
  local checked = function(k, args)
    if #k ~= keys then
      fail(format('%s takes %d key argument%s (%s), got %d', name, keys, keys == 1 and '' or 's',
        keys == 1 and "the filter's name" or 'FCALL ' .. name .. ' 0 ...', #k))
    end
    if readOnly or args[1] ~= 'ID' then return body(k, args) end
    local id = ledger.checkId(name, args[2])
    local rest = {}
    for i = 3, #args do rest[i - 2] = args[i] end
    local name = checkName(k[1])
    return ledger.once(ledger.key(name), id, function() return body(k, rest) end, metaKey(name))
  end
  redis.register_function({ function_name = name, callback = verb(checked), flags = readOnly and { 'no-writes' } or {} })
end

register('bk_reserve', bk_reserve)
register('bk_add', bk_add)
register('bk_madd', bk_madd)
register('bk_madd_at', bk_madd_at)
register('bk_insert', bk_insert)
register('bk_del', bk_del)
register('bk_mdel', bk_mdel)
register('bk_except', bk_except)
register('bk_unexcept', bk_unexcept)
register('bk_shard_madd', bk_shard_madd)
register('bk_shard_count', bk_shard_count)
register('bk_count', bk_count, true)
register('bk_exists', bk_exists, true)
register('bk_mexists', bk_mexists, true)
register('bk_mexists_at', bk_mexists_at, true)
register('bk_card', bk_card, true)
register('bk_info', bk_info, true)
register('bk_shard_mexists', bk_shard_mexists, true)
register('bk_positions', bk_positions, true)
register('bk_hash', bk_hash, true, 0)
register('bk_version', bk_version, true, 0)
