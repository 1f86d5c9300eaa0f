-- ring.lua: the window's rules (docs/FORMAT.md section 3.6; WindowBloomFilter of @bloomkit/window), for both doors.
-- The ring's h = k + l slices of s bits lie in one string, slice j holding each key's bit j; the state is in the meta
-- hash: `newest` (the slice of the newest generation), and per slice `keys:j` (keys added in its generation) and
-- `start:j` (when its generation began, ms; 0 in a count window). A key is present when k consecutive ages hold its
-- bits. A generation ends when it holds g keys or, in a time window, when its time is up (its share of the period
-- left after its keys): the oldest slice is cleared and becomes the newest.
--
-- A ring `r` is { hash (its meta hash's key), name, data (the string's key), k, h, g, period (ms, 0 for a count
-- window), sliceBytes }; each rule
-- reads a key's offsets through `offsetsOf(i, out)`, which writes item i's Redis bit offset in slice j into out[j + 1]
-- for j = 0 .. h - 1 (hashed on the server by the functions, unpacked from the Node client's argument by its scripts).

-- The ring's state, checked as a file's reader checks it: the newest generation below g keys, the others at most g,
-- starts in [-2^49, 2^47] ms (0 in a count window) and in the order of their ages. { newest, keys[j], start[j] }.
local function readRing(r)
  local h, g = r.h, r.g
  local fields = { 'newest' }
  for j = 0, h - 1 do fields[#fields + 1] = 'keys:' .. j; fields[#fields + 1] = 'start:' .. j end
  local st = call('HMGET', r.hash, spread(fields))
  local ring = { keys = {}, start = {}, touched = {} }
  ring.newest = integer(st[1] or nil, 0, h - 1)
  if ring.newest == nil then badMeta(r.name, 'newest', format('an integer in [0, %d]', h - 1), st[1] or nil) end
  for j = 0, h - 1 do
    local most = j == ring.newest and g - 1 or g
    ring.keys[j] = integer(st[2 + 2 * j] or nil, 0, most)
    if ring.keys[j] == nil then badMeta(r.name, 'keys:' .. j, format('an integer in [0, %.0f]', most), st[2 + 2 * j] or nil) end
    local start = tonumber(st[3 + 2 * j] or nil)
    if start == nil or not (start >= -4 * MAX_CLOCK_MS and start <= MAX_CLOCK_MS) or (r.period == 0 and start ~= 0) then
      badMeta(r.name, 'start:' .. j, 'a time in ms in [-2^49, 2^47] (0 in a count window)', st[3 + 2 * j] or nil)
    end
    ring.start[j] = start
  end
  for a = 0, h - 2 do
    local older, newer = (ring.newest + a + 1) % h, (ring.newest + a) % h
    if ring.start[older] > ring.start[newer] then
      badMeta(r.name, 'start:' .. older, 'no later than the start of the generation after it', st[3 + 2 * older])
    end
  end
  return ring
end

-- Sets the time of the call: `now` in ms in a time window (a time behind the newest generation's start counts as that
-- start), 0 in a count window.
local function ringAt(r, ring, now)
  ring.now = 0
  if r.period > 0 then ring.now = max(now, ring.start[ring.newest]) end
end

-- When generation j's time is up: its start plus its share of the period left after its keys.
local function endOf(r, held, began)
  return began + r.period * (1 - held / r.g)
end

-- Ends the newest generation at time t: the oldest slice is cleared and becomes the newest.
local function shift(r, ring, t)
  ring.newest = (ring.newest - 1) % r.h
  clearRange(r.data, ring.newest * r.sliceBytes, r.sliceBytes)
  ring.keys[ring.newest] = 0
  ring.start[ring.newest] = r.period > 0 and t or 0
  ring.touched[ring.newest] = true
end

-- Ends the generations whose time is up (a time window), at most h; after an idle gap of more than h of them the
-- newest begins now, and an empty generation that began now never ends now.
local function ringAdvance(r, ring)
  if r.period == 0 then return end
  local now = ring.now
  for shifted = 0, r.h do
    local n = ring.newest
    local e = endOf(r, ring.keys[n], ring.start[n])
    if now < e or (ring.keys[n] == 0 and ring.start[n] == now) then return end
    if shifted == r.h then
      ring.start[n] = now
      ring.touched[n] = true
      return
    end
    shift(r, ring, e)
  end
end

-- A run of k set bits among the ages 0 .. last of the key whose offsets are `offsets` (age a is slice
-- (newest + a) mod h; ages below k from `before` when given). Every such run holds one of the ages k - 1, 2k - 1, ...,
-- so those are read first, then their neighbours while the run lasts (about h / k + 2 reads for an absent key).
local function ringHolds(r, ring, offsets, last, before)
  local k, h, data, newest = r.k, r.h, r.data, ring.newest
  local function bitAt(a)
    if before and a < k then return before[a + 1] end
    return call('GETBIT', data, offsets[(newest + a) % h + 1])
  end
  for anchor = k - 1, last, k do
    if bitAt(anchor) == 1 then
      local run = 1
      local a = anchor - 1
      while a > anchor - k and bitAt(a) == 1 do run = run + 1; a = a - 1 end
      a = anchor + 1
      while run < k and a <= last and bitAt(a) == 1 do run = run + 1; a = a + 1 end
      if run >= k then return true end
    end
  end
  return false
end

-- Test-and-add of items 1..n (WindowBloomFilter.add, one after the other): each key is looked for, its bits set in
-- the k newest slices (one BITFIELD that returns what they were), and a generation that fills (or whose time is up)
-- ends. Returns the answers (1 new, 0 present) and how many were new.
local function ringAdd(r, ring, n, offsetsOf)
  local k, h, g, period, now = r.k, r.h, r.g, r.period, ring.now
  local out, added, offsets, set = {}, 0, {}, {}
  for i = 1, n do
    offsetsOf(i, offsets)
    for a = 0, k - 1 do
      set[4 * a + 1], set[4 * a + 2], set[4 * a + 3], set[4 * a + 4] = 'SET', 'u1', offsets[(ring.newest + a) % h + 1], 1
    end
    local before = call('BITFIELD', r.data, spread(set, 1, 4 * k))
    local changed = false
    for a = 1, k do if before[a] == 0 then changed = true; break end end
    local present = not changed or ringHolds(r, ring, offsets, h - 1, before)
    if changed then
      local j = ring.newest
      ring.keys[j] = ring.keys[j] + 1
      ring.touched[j] = true
      if ring.keys[j] >= g or (period > 0 and now >= endOf(r, ring.keys[j], ring.start[j])) then shift(r, ring, now) end
    end
    if present then out[i] = 0 else out[i] = 1; added = added + 1 end
  end
  return out, added
end

-- Writes back the state a call changed (numbers with %.17g, which every double survives, so both doors and the local
-- filter compute the same generation boundaries) and adds the new keys to `count`.
local function ringWrite(r, ring, added)
  local write = { 'newest', ring.newest }
  for j, _ in pairs(ring.touched) do
    write[#write + 1] = 'keys:' .. j; write[#write + 1] = ring.keys[j]
    write[#write + 1] = 'start:' .. j; write[#write + 1] = format('%.17g', ring.start[j])
  end
  call('HSET', r.hash, spread(write))
  if added > 0 then call('HINCRBY', r.hash, 'count', added) end
end

-- The last age a lookup may count (read-only: generations whose time is up are not ended here, but with P of them
-- pending the P oldest slices count as cleared, so a key needs its run among the ages 0 .. h - 1 - P).
local function ringLast(r, ring)
  if r.period == 0 then return r.h - 1 end
  local held, began = ring.keys[ring.newest], ring.start[ring.newest]
  for pending = 0, r.h do
    local e = endOf(r, held, began)
    if ring.now < e or (held == 0 and began == ring.now) or pending == r.h then return r.h - 1 - pending end
    held, began = 0, e
  end
end

-- Membership of items 1..n: 1 when k consecutive ages up to `last` hold the key's bits.
local function ringHas(r, ring, n, offsetsOf, last)
  local out, offsets = {}, {}
  for i = 1, n do
    offsetsOf(i, offsets)
    if last >= 0 and ringHolds(r, ring, offsets, last, nil) then out[i] = 1 else out[i] = 0 end
  end
  return out
end

-- A new window's state (WindowBloomFilter.create): every slice empty, the older (empty) generations begun a period
-- apart before `now`.
local function ringFresh(r, now)
  local write = { 'newest', 0 }
  for j = 0, r.h - 1 do
    write[#write + 1] = 'keys:' .. j; write[#write + 1] = 0
    write[#write + 1] = 'start:' .. j; write[#write + 1] = format('%.17g', now - j * r.period)
  end
  call('HSET', r.hash, spread(write))
end
