-- chain.lua: the scalable filter's rules (docs/FORMAT.md section 3.4; ScalableBloomFilter of @bloomkit/scalable),
-- for both doors. A key is present when some sub-filter holds it. A new key goes into the newest sub-filter; when
-- the newest already holds its capacity, the next sub-filter (its shape from the meta hash's `shapes`) is chained
-- first. The chain's length is the meta hash's `filters`, sub-filter j's count its `count:j`.
--
-- A chain `c` is { hash (its meta hash's key), name, subs } with subs[j] = { k, capacity, bytes, key } for the sub-filters j = 1, 2, ... its
-- caller knows (the functions: all that `shapes` lists; the Node client: those it computed positions for); each rule
-- reads a key's offsets through `offsetsOf(i, j, out)`, item i's k Redis bit offsets in sub-filter j.

-- The chain's length C (`filters`, at most `most`) and the newest sub-filter's count (`count:C-1`, absent is 0),
-- checked. When C is beyond the sub-filters known, returns C alone; else every sub-filter of the chain is checked to
-- be there at its size: one gone (evicted, deleted) is the filter gone, never recreated empty.
local function readChain(c, most)
  local key = c.hash
  local text = call('HGET', key, 'filters')
  local C = integer(text or nil, 1, most)
  if C == nil then badMeta(c.name, 'filters', format('an integer in [1, %d] (the sub-filters its shapes list)', most), text or nil) end
  local newestText = call('HGET', key, 'count:' .. (C - 1))
  local newest = 0
  if newestText then newest = integer(newestText, 0, MAX_SAFE) end
  if newest == nil then badMeta(c.name, 'count:' .. (C - 1), format('an integer in [0, %.0f]', MAX_SAFE), newestText) end
  if C > #c.subs then return C end
  for j = 1, C do
    if call('STRLEN', c.subs[j].key) ~= c.subs[j].bytes then gone(c.name, 'its sub-filter ' .. c.subs[j].key .. ' is gone or not its size') end
  end
  return C, newest
end

-- The arguments of one sub-filter's BITFIELD and a key's offsets in it, reused.
local probeCmd, probeOffsets = {}, {}

-- Whether sub-filter j holds item i; with `set`, its bits are set too (one BITFIELD: the answer is whether they
-- all were set before).
local function subHolds(c, offsetsOf, i, j, set)
  local one = c.subs[j]
  local k = one.k
  offsetsOf(i, j, probeOffsets)
  local reply
  if set then
    for h = 1, k do
      probeCmd[4 * h - 3], probeCmd[4 * h - 2], probeCmd[4 * h - 1], probeCmd[4 * h] = 'SET', 'u1', probeOffsets[h], 1
    end
    reply = call('BITFIELD', one.key, spread(probeCmd, 1, 4 * k))
  else
    for h = 1, k do
      probeCmd[3 * h - 2], probeCmd[3 * h - 1], probeCmd[3 * h] = 'GET', 'u1', probeOffsets[h]
    end
    reply = call('BITFIELD_RO', one.key, spread(probeCmd, 1, 3 * k))
  end
  for h = 1, k do if reply[h] == 0 then return false end end
  return true
end

-- Chains sub-filter C + 1 after the full newest C: C's count recorded, the new string zeroed with the meta hash's TTL.
local function grow(c, C, newest)
  local key = c.hash
  call('HSET', key, 'count:' .. (C - 1), format('%.0f', newest))
  local grown = c.subs[C + 1]
  call('DEL', grown.key)
  call('SETRANGE', grown.key, grown.bytes - 1, '\0')
  local ttl = call('PTTL', key)
  if ttl > 0 then call('PEXPIRE', grown.key, ttl) end
  call('HSET', key, 'filters', C + 1)
end

-- Test-and-add of items 1..n (ScalableBloomFilter.add, one after the other): 1 when no sub-filter held the item and
-- it went into the newest, 0 when present. When the chain must grow past the sub-filters known, `beyond(i)` says
-- what item i gets: an error reply in its place (nothing of it written; the functions, whose shapes end there), or
-- nil to stop there (the Node client computes the next sub-filter's positions and sends the rest again). The counts
-- are written once, at the end. Returns the answers, the chain's length and whether it stopped.
local function chainAdd(c, C, newest, n, offsetsOf, beyond)
  local out, added, stopped = {}, 0, false
  for i = 1, n do
    local present = false
    for j = C - 1, 1, -1 do
      if subHolds(c, offsetsOf, i, j, false) then present = true; break end
    end
    if not present then
      if newest < c.subs[C].capacity then
        present = subHolds(c, offsetsOf, i, C, true)
      elseif subHolds(c, offsetsOf, i, C, false) then
        present = true
      elseif c.subs[C + 1] == nil then
        present = beyond(i)
        if present == nil then stopped = true; break end
      else
        grow(c, C, newest)
        C, newest = C + 1, 0
        present = subHolds(c, offsetsOf, i, C, true)
      end
    end
    if type(present) == 'table' then out[i] = present
    elseif present then out[i] = 0 else out[i] = 1; newest = newest + 1; added = added + 1 end
  end
  if added > 0 then
    call('HSET', c.hash, 'count:' .. (C - 1), format('%.0f', newest))
    call('HINCRBY', c.hash, 'count', added)
  end
  return out, C, stopped
end

-- Membership of items 1..n: 1 when some sub-filter of the C holds it (newest first).
local function chainHas(c, C, n, offsetsOf)
  local out = {}
  for i = 1, n do
    local present = 0
    for j = C, 1, -1 do
      if subHolds(c, offsetsOf, i, j, false) then present = 1; break end
    end
    out[i] = present
  end
  return out
end
