-- cuckoo.lua: a cuckoo filter's table in one Redis string (CuckooFilter of @bloomkit/cuckoo, docs/FORMAT.md section
-- 3.9), for both doors. Slot j of f bits is BITFIELD's `u<f>` at bit offset j * f (the table is packed most
-- significant bit first, as BITFIELD reads), bucket i is slots i * b .. i * b + b - 1, the guard follows the table.
--
-- From a key's hash words h1, h2, h3: fingerprint fp = (h2 mod (2^f - 1)) + 1, first bucket i1 = h1 mod n, other
-- bucket (g(fp) - i) mod n with g(fp) = fp * 0x1b873593 mod 2^32 (every product below 2^53: exact here as in
-- JavaScript). An add places fp in the first empty slot of i1, else of i2; else it walks from i1 (h3 even) or i2,
-- r = h3, r <- 69069 r + 1 mod 2^32, swapping fp with slot floor(r / 2^16) mod b and carrying the one taken out to
-- its other bucket, at most `kicks` times.
--
-- Every change of a call is made on a copy of the buckets it read (`view`), written back by cuckooCommit only once
-- the whole call succeeded: a key that finds no room, or a call past its budget, fails the call and writes nothing,
-- as the local filter's addAll is whole or nothing.

-- Every rule of the kind lives in this one table (its sizing in sizing.lua, its verbs in filters.lua): a Lua chunk
-- holds at most 200 locals, and the function library is one chunk.
local cuckoo = {
  ALT_MULTIPLIER = 461845907, -- 0x1b873593, MurmurHash3's c2
  LOAD = { [2] = 0.8, [4] = 0.9, [8] = 0.93 }, -- LOAD_AT_CAPACITY of @bloomkit/cuckoo
  KICKS = 1000, -- MAX_KICKS of @bloomkit/cuckoo
  MAX_BUCKETS = 2 ^ 31 - 1,
  MAX_ARGS = 7000, -- a BITFIELD's arguments (bits.lua's MAX_ARGS)
}


-- A view of the table in string `data`: f-bit slots, buckets of b, n buckets, walks of at most `kicks`; `allowance`
-- is how many kicks the whole call may make (its budget), counted in `kicked`.
function cuckoo.view(data, f, b, n, kicks, allowance)
  return { data = data, ftype = 'u' .. f, f = f, b = b, n = n, kicks = kicks, modulus = 2 ^ f - 1,
    allowance = allowance, kicked = 0, now = {}, was = {}, dirty = {} }
end

-- The other bucket of fingerprint `fp` in `bucket`: (g(fp) - bucket) mod n.
function cuckoo.other(v, bucket, fp)
  local other = (fp * cuckoo.ALT_MULTIPLIER) % TWO32 % v.n - bucket
  if other < 0 then other = other + v.n end
  return other
end

-- The fingerprint and both buckets of the key whose hash words are h1, h2.
function cuckoo.key(v, h1, h2)
  local fp = h2 % v.modulus + 1
  local i1 = h1 % v.n
  return fp, i1, cuckoo.other(v, i1, fp)
end

-- The slots of `bucket`, read when first met: the bytes that hold them in one GETRANGE (three more, so every slot's
-- last byte is in reach), each slot the f bits at its offset, most significant first. (A GETRANGE and this decoding
-- take half the server time of a BITFIELD_RO of b GETs: 3 us against 5.5 measured, Redis 7.0.)
function cuckoo.bucket(v, bucket)
  local slots = v.now[bucket]
  if slots ~= nil then return slots end
  local b, f = v.b, v.f
  local first = bucket * b * f
  local from = floor(first / 8)
  local bytes = call('GETRANGE', v.data, from, floor((first + b * f - 1) / 8) + 3)
  slots = {}
  local at, width = first - from * 8, 2 ^ f
  for s = 1, b do
    local index = floor(at / 8)
    local b1, b2, b3, b4 = byte(bytes, index + 1, index + 4)
    local word = b1 * 16777216 + (b2 or 0) * 65536 + (b3 or 0) * 256 + (b4 or 0)
    slots[s] = floor(word / 2 ^ (32 - (at - index * 8) - f)) % width
    at = at + f
  end
  v.now[bucket] = slots
  return slots
end

-- Sets slot s (1-based) of `bucket` in the view, remembering the bucket as it was read.
function cuckoo.set(v, bucket, s, value)
  local slots = v.now[bucket]
  if v.was[bucket] == nil then
    local copy = {}
    for j = 1, v.b do copy[j] = slots[j] end
    v.was[bucket] = copy
    v.dirty[#v.dirty + 1] = bucket
  end
  slots[s] = value
end

-- The first empty slot of `slots` (1-based), or nil.
function cuckoo.firstEmpty(slots, b)
  for s = 1, b do if slots[s] == 0 then return s end end
  return nil
end

-- Places `fp` (buckets i1, i2, walk seed r): returns 1 when the key was absent before (fp in neither bucket), 0
-- when present; nil when the walk found no room or the call's kicks ran out, the view then past use (the call
-- fails: cuckooRefusal says which).
function cuckoo.place(v, fp, i1, i2, r)
  local b, one, two = v.b, cuckoo.bucket(v, i1), cuckoo.bucket(v, i2)
  local fresh = 1
  for s = 1, b do if one[s] == fp or two[s] == fp then fresh = 0 end end
  local empty = cuckoo.firstEmpty(one, b)
  if empty ~= nil then cuckoo.set(v, i1, empty, fp); return fresh end
  empty = cuckoo.firstEmpty(two, b)
  if empty ~= nil then cuckoo.set(v, i2, empty, fp); return fresh end
  local bucket, state, carried = i1, r, fp
  if r % 2 == 1 then bucket = i2 end
  for _ = 1, v.kicks do
    v.kicked = v.kicked + 1
    if v.kicked > v.allowance then return nil end
    state = (state * 69069 + 1) % TWO32
    local s = floor(state / 65536) % b + 1
    local slots = cuckoo.bucket(v, bucket)
    local taken = slots[s]
    cuckoo.set(v, bucket, s, carried)
    carried = taken
    bucket = cuckoo.other(v, bucket, carried)
    slots = cuckoo.bucket(v, bucket)
    empty = cuckoo.firstEmpty(slots, b)
    if empty ~= nil then cuckoo.set(v, bucket, empty, carried); return fresh end
  end
  return nil
end

-- Removes one copy of `fp` (buckets i1, i2): the lowest slot of i1 holding it, else of i2. 1 removed, 0 absent.
function cuckoo.remove(v, fp, i1, i2)
  local slots = cuckoo.bucket(v, i1)
  for s = 1, v.b do
    if slots[s] == fp then cuckoo.set(v, i1, s, 0); return 1 end
  end
  slots = cuckoo.bucket(v, i2)
  for s = 1, v.b do
    if slots[s] == fp then cuckoo.set(v, i2, s, 0); return 1 end
  end
  return 0
end

-- Copies of `fp` in buckets i1 and i2 (once when they are one bucket).
function cuckoo.copies(v, fp, i1, i2)
  local one, two, copies = cuckoo.bucket(v, i1), cuckoo.bucket(v, i2), 0
  for s = 1, v.b do if one[s] == fp then copies = copies + 1 end end
  if i2 ~= i1 then
    for s = 1, v.b do if two[s] == fp then copies = copies + 1 end end
  end
  return copies
end

-- Writes the view's changed slots to the string, in BITFIELD commands of a few thousand arguments.
function cuckoo.commit(v)
  local cmd, n = {}, 0
  local function flush()
    if n > 0 then call('BITFIELD', v.data, spread(cmd, 1, n)) end
    n = 0
  end
  for _, bucket in ipairs(v.dirty) do
    local now, was = v.now[bucket], v.was[bucket]
    for s = 1, v.b do
      if now[s] ~= was[s] then
        cmd[n + 1], cmd[n + 2], cmd[n + 3], cmd[n + 4] = 'SET', v.ftype, (bucket * v.b + s - 1) * v.f, now[s]
        n = n + 4
        if n >= cuckoo.MAX_ARGS then flush() end
      end
    end
  end
  flush()
end

-- The refusal of an add that found no room (`kicked` past the walk's kicks) or ran out of the call's kicks.
function cuckoo.refusal(v, name, held)
  if v.kicked > v.allowance then
    return format('the walks of this call need more than the %.0f kicks it may make (the table of %s is near full: %.0f of %.0f slots hold fingerprints); nothing was written: add fewer items per call',
      v.allowance, name, held, v.n * v.b)
  end
  return format('the cuckoo filter %s is full: no room for an item after %d kicks (%.0f of %.0f slots hold fingerprints); nothing was written',
    name, v.kicks, held, v.n * v.b)
end

-- The calls of both doors, on n keys whose hash words h1, h2, h3 `hashOf(i)` gives (hashed on the server by the
-- functions, sent packed by the Node client). `hash` is the meta hash and `count` its count, read and checked by the
-- door before anything is written.

-- Adds one copy of each key (CuckooFilter.addAll), whole or nothing: 1 per key absent before, 0 present, and `count`
-- grows by n; or nil and the refusal (cuckoo.refusal) when a key finds no room, nothing written.
-- With `absentOnly`, a key whose fingerprint is in one of its buckets is not added again (answered 0, no copy, not
-- counted): RedisBloom's CF.ADDNX, what a dedup of a stream wants (a repeat costs no slot).
function cuckoo.addAll(v, hash, count, name, n, hashOf, absentOnly)
  local out, placed = {}, 0
  for i = 1, n do
    local h1, h2, h3 = hashOf(i)
    local fp, i1, i2 = cuckoo.key(v, h1, h2)
    if absentOnly and cuckoo.copies(v, fp, i1, i2) > 0 then
      out[i] = 0
    else
      out[i] = cuckoo.place(v, fp, i1, i2, h3)
      if out[i] == nil then return nil, cuckoo.refusal(v, name, count) end
      placed = placed + 1
    end
  end
  cuckoo.commit(v)
  if placed > 0 then call('HINCRBY', hash, 'count', placed) end
  return out
end

-- Removes one copy of each key, in order (CuckooFilter.deleteAll): 1 removed, 0 absent; `count` less the removed.
function cuckoo.removeAll(v, hash, count, n, hashOf)
  local out, removed = {}, 0
  for i = 1, n do
    local h1, h2 = hashOf(i)
    local fp, i1, i2 = cuckoo.key(v, h1, h2)
    out[i] = cuckoo.remove(v, fp, i1, i2)
    removed = removed + out[i]
  end
  cuckoo.commit(v)
  if removed > 0 then call('HSET', hash, 'count', format('%.0f', max(0, count - removed))) end
  return out
end

-- The copies of each key's fingerprint in its buckets (CuckooFilter.countOf), writing nothing.
function cuckoo.copiesAll(v, n, hashOf)
  local out = {}
  for i = 1, n do
    local h1, h2 = hashOf(i)
    local fp, i1, i2 = cuckoo.key(v, h1, h2)
    out[i] = cuckoo.copies(v, fp, i1, i2)
  end
  return out
end
