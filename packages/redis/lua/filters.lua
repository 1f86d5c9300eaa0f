-- filters.lua: the function library's adds, lookups and deletes of a filter whose meta it read (meta.lua), by its
-- storage family: the keys hashed here (hash.lua, positions.lua), each call priced first (budget.lua), then the rule
-- of the family that both doors share (bits.lua, ring.lua, chain.lua, counters.lua, exceptions.lua, cuckoo.lua).

-- How many items args[from..] are: at least one.
local function items(where, args, from)
  local n = #args - from + 1
  if n < 1 then fail(where .. ': give at least one ITEM') end
  return n
end

-- The server's time in ms (TIME).
local function serverMs()
  local t = call('TIME')
  return tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end

-- The Redis offsets of positions first..last of every item args[from..] (k positions per item, `pos` reused), in
-- order: BITFIELD offsets of bits, or of counters of `meta.width` bits.
local pos = {}
local function offsetsOfItems(meta, args, from, first, last)
  local width, shape, offsets, o = meta.width, meta.shape, {}, 0
  for j = from, #args do
    positions(shape, args[j], pos)
    for h = first, last do
      o = o + 1
      if width == 0 then offsets[o] = bitOffset(pos[h]) else offsets[o] = counterOffset(pos[h], width) end
    end
  end
  return offsets
end

-- The reply of a test-and-add: 1 for an item added or taken off the exception list (2 in bits.lua's answers).
local function asAdded(out)
  for i = 1, #out do if out[i] == 2 then out[i] = 1 end end
  return out
end

-- The exception set of `meta` when it has one, checked to be a set (or absent) before anything is written: a key of
-- another type there would fail the call's SREM after its bits were set.
local function exceptionSet(meta)
  if not meta.exceptions then return nil end
  local reply = redis.pcall('SCARD', meta.set) -- SCARD, not TYPE: the verbs' documented ACL has it
  if type(reply) == 'table' and reply.err then
    fail(format('the exception list %s of %s is not a set (%s); nothing was written', meta.set, meta.name, reply.err))
  end
  return meta.set
end

local windowAdd, windowHas, chainAdd_, chainHas_

-- Test-and-add of every item args[from..]: 1 when it was new (bits.lua's addAnswers); `count` grows by the new.
local function addAll(where, meta, args, from)
  if meta.kind.storage == 'ring' then return windowAdd(where, meta, args, from) end
  if meta.kind.storage == 'chain' then return chainAdd_(where, meta, args, from) end
  if meta.kind.storage == 'cuckoo' then return cuckoo.addItems(where, meta, args, from) end
  if meta.kind.storage == 'fuse' then fuse.refuseAdd(where, meta) end
  local k = meta.k
  charge(where, args, from, k + (meta.exceptions and CALL_UNITS or 0), 0, format('%d positions', k))
  metaCount(meta)
  local set = exceptionSet(meta)
  local offsets = offsetsOfItems(meta, args, from, 1, k)
  local before, newWhen
  if meta.width == 0 then before = bitfieldOffsets(meta.data, false, 'SET', 'u1', 1, offsets, false); newWhen = 0
  else before = bitfieldOffsets(meta.data, false, 'INCRBY', 'u' .. meta.width, 1, offsets, true); newWhen = 1 end
  local out, added = addAnswers(before, k, newWhen, set, #args - from + 1, function(i) return args[from + i - 1] end)
  if added > 0 then call('HINCRBY', meta.hash, 'count', added) end
  return asAdded(out)
end

-- Membership of every item args[from..]: 1 when all k bits (counters) are set and, with exceptions, the item is not
-- listed. Each item is hashed once; its offsets are read in two rounds, as the Node client does: the first two of
-- every item, then the others of the items whose first two are set, so an absent item mostly costs two reads, not k.
local function hasAll(where, meta, args, from)
  if meta.kind.storage == 'ring' then return windowHas(where, meta, args, from) end
  if meta.kind.storage == 'chain' then return chainHas_(where, meta, args, from) end
  if meta.kind.storage == 'cuckoo' then return cuckoo.hasItems(where, meta, args, from) end
  if meta.kind.storage == 'fuse' then return fuse.hasItems(where, meta, args, from) end
  local k = meta.k
  charge(where, args, from, k + (meta.exceptions and CALL_UNITS or 0), 0, format('%d positions', k))
  local n, ctype = #args - from + 1, meta.width == 0 and 'u1' or 'u' .. meta.width
  local all = offsetsOfItems(meta, args, from, 1, k)
  local head = min(2, k)
  local firsts = {}
  for i = 0, n - 1 do
    for h = 1, head do firsts[i * head + h] = all[i * k + h] end
  end
  local values = bitfieldOffsets(meta.data, true, 'GET', ctype, nil, firsts, false)
  local out, candidates, rest = {}, {}, {}
  for i = 0, n - 1 do
    out[i + 1] = anyOf(values, i, head, 0) and 0 or 1
    if out[i + 1] == 1 and k > head then
      candidates[#candidates + 1] = i
      for h = head + 1, k do rest[#rest + 1] = all[i * k + h] end
    end
  end
  if #candidates > 0 then
    local more = bitfieldOffsets(meta.data, true, 'GET', ctype, nil, rest, false)
    for c = 0, #candidates - 1 do
      if anyOf(more, c, k - head, 0) then out[candidates[c + 1] + 1] = 0 end
    end
  end
  if not meta.exceptions then return out end
  for i = 1, n do
    if out[i] == 1 and call('SISMEMBER', meta.set, args[from + i - 1]) == 1 then out[i] = 0 end
  end
  return out
end

-- The ring of a window filter (ring.lua).
local function ringOf(meta)
  return { hash = meta.hash, name = meta.name, data = meta.data, k = meta.k, h = meta.h, g = meta.g, period = meta.period,
    sliceBytes = meta.sliceBits / 8 }
end

-- Item i's offsets in the ring's slices (args[from + i - 1] hashed).
local function ringOffsets(meta, args, from)
  return function(i, out)
    positions(meta.shape, args[from + i - 1], pos)
    for j = 1, meta.h do out[j] = bitOffset(pos[j]) end
    return out
  end
end

-- Test-and-add in a window (WindowBloomFilter.add), at the server's time or `given` (bk_madd_at).
windowAdd = function(where, meta, args, from, given)
  local k, h, g, period = meta.k, meta.h, meta.g, meta.period
  -- Priced at its worst: each item reads every slice (one GETBIT each), and every generation ends in the call (h of
  -- them whose time is up, then one each g new keys), each clearing a slice.
  local n = #args - from + 1
  local shifts = min(h + n, (period > 0 and h or 0) + ceil(n / g) + 1)
  charge(where, args, from, k + (h + 1) * CALL_UNITS, shifts * (clearUnits(meta.sliceBits / 8) + 2 * CALL_UNITS),
    format('%d slices', h))
  metaCount(meta)
  local r = ringOf(meta)
  local ring = readRing(r)
  ringAt(r, ring, period > 0 and (given or serverMs()) or 0)
  ringAdvance(r, ring)
  local out, added = ringAdd(r, ring, n, ringOffsets(meta, args, from))
  ringWrite(r, ring, added)
  return out
end

-- Membership in a window, read-only (ring.lua's ringLast says which ages count).
windowHas = function(where, meta, args, from, given)
  charge(where, args, from, (meta.h + 1) * CALL_UNITS, 0, format('%d slices', meta.h))
  local r = ringOf(meta)
  local ring = readRing(r)
  ringAt(r, ring, meta.period > 0 and (given or serverMs()) or 0)
  return ringHas(r, ring, #args - from + 1, ringOffsets(meta, args, from), ringLast(r, ring))
end

-- Item i's offsets in sub-filter j: each item hashed once (every sub-filter has the filter's seed), its positions
-- in each sub-filter from that one hash.
local function chainOffsets(meta, args, from)
  local hashed, p, d1, d2, d3 = nil, 0, 0, 0, 0
  return function(i, j, out)
    if hashed ~= i then p, d1, d2, d3 = murmur(args[from + i - 1], meta.seed); hashed = i end
    positionsOfHash(meta.subs[j].shape, p, d1, d2, d3, pos)
    for h = 1, meta.subs[j].k do out[h] = bitOffset(pos[h]) end
    return out
  end
end

-- The units one item costs when it may probe sub-filters 1..last: each one's k positions and its BITFIELD.
local function chainProbeUnits(subs, last)
  local units = 0
  for j = 1, last do units = units + subs[j].k + CALL_UNITS end
  return units
end

-- Test-and-add in a scalable filter (ScalableBloomFilter.add); an item the chain cannot take (its shapes end) gets
-- an error in its place, as RedisBloom's BF.MADD on a full filter, the others as usual.
chainAdd_ = function(where, meta, args, from)
  metaCount(meta)
  local subs = meta.subs
  local C, newest = readChain(meta, #subs)
  -- Priced at its worst: every item new, so the chain grows into as many sub-filters as n items can fill, each
  -- allocated (cleared) in this call, and each item probes all of them.
  local n = #args - from + 1
  local last, room, grownBytes = C, subs[C].capacity - newest, 0
  while room < n and last < #subs do
    last = last + 1
    room = room + subs[last].capacity
    grownBytes = grownBytes + subs[last].bytes
  end
  charge(where, args, from, chainProbeUnits(subs, last), clearUnits(grownBytes) + (last - C) * 6 * CALL_UNITS,
    format('%d sub-filters', last))
  local full = nil
  local out = chainAdd(meta, C, newest, n, chainOffsets(meta, args, from), function()
    full = full or redis.error_reply(format('ERR bloomkit: the scalable filter %s cannot grow past sub-filter %d: its shapes end there (the next sub-filter cannot exist or would not fit one Redis string); this item was not added', meta.name, #subs - 1))
    return full
  end)
  return out
end

-- Membership in a scalable filter: 1 when some sub-filter holds the item (newest first).
chainHas_ = function(where, meta, args, from)
  local C = readChain(meta, #meta.subs)
  charge(where, args, from, chainProbeUnits(meta.subs, C), 0, format('%d sub-filters', C))
  return chainHas(meta, C, #args - from + 1, chainOffsets(meta, args, from))
end

-- The checked delete of every item args[from..] (counters.lua).
local function deleteItems(where, meta, args, from)
  if meta.kind.storage == 'cuckoo' then return cuckoo.deleteItems(where, meta, args, from) end
  local k = meta.k
  charge(where, args, from, 2 * k + ceil(k * k / 32), 0, format('%d counters read and decremented', k))
  local function offsetsOf(i, out)
    positions(meta.shape, args[from + i - 1], pos)
    for h = 1, k do out[h] = counterOffset(pos[h], meta.width) end
    return out
  end
  return deleteAll(meta.hash, meta.data, meta.width, k, #args - from + 1, offsetsOf, metaCount(meta))
end

-- A cuckoo filter's table for a call on items args[from..] (cuckoo.lua), priced first: each item its hash, its two
-- buckets read (a GETRANGE each: CALL_UNITS + 1) and a slot written back; an add also one whole walk for the call
-- (a kick is a bucket read and a slot written: about 5 us measured). The kicks an add may make are those the budget
-- leaves: never fewer than one walk's, and a call whose walks need more fails whole (cuckoo.refusal).
cuckoo.ITEM_UNITS, cuckoo.KICK_UNITS = 2 * (CALL_UNITS + 1) + 1, CALL_UNITS + 4
-- An add reserves one whole walk, of at most cuckoo.KICKS kicks whatever the file's max kicks (the format allows
-- 65,535, priced whole every add was refused): a longer walk meets the call's allowance instead and is refused with
-- nothing written, as the Node client's calls are (cuckoo-store.ts).
function cuckoo.call(where, meta, args, from, adds)
  charge(where, args, from, cuckoo.ITEM_UNITS, adds and min(meta.kicks, cuckoo.KICKS) * cuckoo.KICK_UNITS or 0,
    format('two buckets of %d slots', meta.b))
  local allowance = 0
  if adds then
    local units = itemUnits(args, from)
    allowance = floor((CALL_BUDGET - units - (#args - from + 1) * cuckoo.ITEM_UNITS) / cuckoo.KICK_UNITS)
  end
  return cuckoo.view(meta.data, meta.f, meta.b, meta.n, meta.kicks, allowance)
end

-- Item i's hash words h1..h4 (args[from + i - 1] hashed with the filter's seed).
function cuckoo.hashes(meta, args, from)
  return function(i) return murmur(args[from + i - 1], meta.seed) end
end

-- Adds one copy of every item (CuckooFilter.addAll), whole or nothing: 1 when the item was absent before.
function cuckoo.addItems(where, meta, args, from)
  local v = cuckoo.call(where, meta, args, from, true)
  local out, refusal = cuckoo.addAll(v, meta.hash, metaCount(meta), meta.name, #args - from + 1,
    cuckoo.hashes(meta, args, from))
  if out == nil then fail(where .. ': ' .. refusal) end
  return out
end

-- Copies of every item's fingerprint in its buckets (CuckooFilter.countOf).
function cuckoo.countItems(where, meta, args, from)
  local v = cuckoo.call(where, meta, args, from, false)
  return cuckoo.copiesAll(v, #args - from + 1, cuckoo.hashes(meta, args, from))
end

-- Membership of every item: 1 when its fingerprint is in one of its buckets.
function cuckoo.hasItems(where, meta, args, from)
  local out = cuckoo.countItems(where, meta, args, from)
  for i = 1, #out do if out[i] > 0 then out[i] = 1 end end
  return out
end

-- Removes one copy of every item, in order (CuckooFilter.deleteAll): 1 removed, 0 absent.
function cuckoo.deleteItems(where, meta, args, from)
  local v = cuckoo.call(where, meta, args, from, false)
  return cuckoo.removeAll(v, meta.hash, metaCount(meta), #args - from + 1, cuckoo.hashes(meta, args, from))
end

-- A binary fuse filter's lookups (fuse.lua), priced first: each item its hash, its mixing (four 64-bit products in
-- 16-bit pieces: about a unit) and three fingerprints read (BITFIELD GETs). Measured, Redis 7.0: 9 to 11 us of the
-- server an item in calls of 2,500 URL keys (38 bytes), priced 13.4.
fuse.ITEM_UNITS = 4
function fuse.hasItems(where, meta, args, from)
  charge(where, args, from, fuse.ITEM_UNITS, CALL_UNITS, 'three slots')
  local function hashOf(i)
    local h1, h2 = murmur(args[from + i - 1], meta.seed)
    return h1, h2
  end
  local function readAll(offsets, ftype) return bitfieldOffsets(meta.data, true, 'GET', ftype, nil, offsets, false) end
  return fuse.hasAll(meta.fuse, #args - from + 1, hashOf, readAll)
end

-- A fixed set takes no item: refused before anything is read or written.
function fuse.refuseAdd(where, meta)
  fail(format('%s: %s is a fuse filter, a fixed set; build a new one with the items (bloomkit build FILE --kind fuse8) and push it under a new name', where, meta.name))
end
