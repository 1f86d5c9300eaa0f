import { MAX_CLOCK_MS } from '@bloomkit/core';
import { GONE_REPLY } from './errors.js';
import { OFFSET } from './scripts.js';
import { CLOCK_REPLY, READ_NOW } from './window-clock.js';

// The Lua of a window in Redis: its test-and-add, its lookups and the start of a fresh generation, each atomic on
// the ring's one slot (scripts.ts says how the batch's positions are packed).

/**
 * Shared Lua of a window (docs/FORMAT.md §3.6): KEYS[1] the meta hash, KEYS[2] the ring's bits; ARGV[1] packed
 * offsets (k + l per key: the key's bit in each slice j), ARGV[2] k, ARGV[3] k + l, ARGV[4] g, ARGV[5] bytes per
 * slice, ARGV[6] the period in ms (0: a count window), ARGV[7] the caller's time in ms or '' for the server's,
 * ARGV[8] the generation, ARGV[9] the caller's clock tolerance in ms or 'inf' (see window-clock.ts). Reads the
 * ring's state (newest, keys:j, start:j) from the meta hash and checks it as a file's reader does: the newest
 * generation below g keys, the others at most g, starts in [-2^49, 2^47] ms and in the order of their ages. The
 * time is the server's (or the caller's within the tolerance), and a time behind the newest generation's start
 * counts as that start. Numbers are written back with %.17g, which every double survives, so Redis and the local
 * filter compute the same generation boundaries.
 */
const WINDOW_PROLOGUE = `${OFFSET}${READ_NOW}
local meta, ring = KEYS[1], KEYS[2]
local packed = ARGV[1]
local k, h, g = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local sbytes, period = tonumber(ARGV[5]), tonumber(ARGV[6])
local fields = { 'generation', 'newest' }
for j = 0, h - 1 do fields[#fields + 1] = 'keys:' .. j; fields[#fields + 1] = 'start:' .. j end
local st = redis.call('HMGET', meta, unpack(fields))
if st[1] ~= ARGV[8] then return redis.error_reply('${GONE_REPLY} the filter no longer exists') end
-- The ring gone (evicted, deleted) is the filter gone: never recreated empty by the writes below.
if redis.call('STRLEN', ring) ~= h * sbytes then return redis.error_reply('${GONE_REPLY} the filter no longer exists (its ring is gone)') end
-- A count as the functions read one: decimal digits only (no sign, fraction, exponent, hex or spaces), or nil.
local function digits(text)
  if type(text) ~= 'string' or #text > 16 or not string.match(text, '^%d+$') then return nil end
  return tonumber(text)
end
local newest = digits(st[2])
if newest == nil or newest >= h then return redis.error_reply('BLOOMKIT_BADMETA newest') end
local keys, start = {}, {}
for j = 0, h - 1 do
  keys[j] = digits(st[3 + 2 * j]); start[j] = tonumber(st[4 + 2 * j])
  local most = g
  if j == newest then most = g - 1 end
  if keys[j] == nil or keys[j] > most then return redis.error_reply('BLOOMKIT_BADMETA keys:' .. j) end
  if start[j] == nil or not (start[j] >= ${-4 * MAX_CLOCK_MS} and start[j] <= ${MAX_CLOCK_MS}) or (period == 0 and start[j] ~= 0) then return redis.error_reply('BLOOMKIT_BADMETA start:' .. j) end
end
for a = 0, h - 2 do
  if start[(newest + a + 1) % h] > start[(newest + a) % h] then return redis.error_reply('BLOOMKIT_BADMETA start:' .. ((newest + a + 1) % h)) end
end
local now = 0
if period > 0 then
  local skew
  now, skew = readNow(ARGV[7], ARGV[9])
  if now == nil then return redis.error_reply('${CLOCK_REPLY} ' .. skew) end
  if now < start[newest] then now = start[newest] end
end
local n = #packed / (4 * h)
-- Key i's bit at age a (slice (newest + a) mod h); ages below k from \`before\` when given (add read them).
local function bitAt(i, a, before)
  if before and a < k then return before[a + 1] end
  return redis.call('GETBIT', ring, offset(packed, i * h + (newest + a) % h))
end
-- A run of k set bits among the ages 0 .. last: every such run holds one of the ages k - 1, 2k - 1, ..., so those
-- are read first, then their neighbours while the run lasts (about (k + l)/k + 2 reads for an absent key).
local function holds(i, last, before)
  for anchor = k - 1, last, k do
    if bitAt(i, anchor, before) == 1 then
      local run = 1
      local a = anchor - 1
      while a > anchor - k and bitAt(i, a, before) == 1 do run = run + 1; a = a - 1 end
      a = anchor + 1
      while run < k and a <= last and bitAt(i, a, before) == 1 do run = run + 1; a = a + 1 end
      if run >= k then return true end
    end
  end
  return false
end
`;

/**
 * Test-and-add of a batch in a window, atomically: first the generations whose time is up end (a time window);
 * then each key is looked for, its bits set in the k newest slices, and a generation that fills ends (the oldest
 * slice cleared, becoming the newest). Writes the state back and adds the new keys to `count`. '1' per new key.
 */
export const WINDOW_ADD: string = `${WINDOW_PROLOGUE}
local total = redis.call('HGET', meta, 'count')
if total and not string.match(total, '^%d+$') then return redis.error_reply('BLOOMKIT_BADMETA count') end
local zeros
local touched = {}
local function shift(t)
  newest = (newest - 1) % h
  zeros = zeros or string.rep('\\0', sbytes)
  redis.call('SETRANGE', ring, newest * sbytes, zeros)
  keys[newest] = 0
  if period > 0 then start[newest] = t else start[newest] = 0 end
  touched[newest] = true
end
if period > 0 then
  for shifted = 0, h do
    local e = start[newest] + period * (1 - keys[newest] / g)
    if now < e or (keys[newest] == 0 and start[newest] == now) then break end
    if shifted == h then
      start[newest] = now
      touched[newest] = true
      break
    end
    shift(e)
  end
end
local out = {}
local added = 0
local args = {}
for i = 0, n - 1 do
  -- One BITFIELD sets the k newest bits and returns what they were.
  for a = 0, k - 1 do
    args[4 * a + 1] = 'SET'; args[4 * a + 2] = 'u1'; args[4 * a + 3] = offset(packed, i * h + (newest + a) % h); args[4 * a + 4] = 1
  end
  local before = redis.call('BITFIELD', ring, unpack(args, 1, 4 * k))
  local changed = false
  for a = 1, k do
    if before[a] == 0 then changed = true; break end
  end
  local present = not changed or holds(i, h - 1, before)
  if changed then
    keys[newest] = keys[newest] + 1
    touched[newest] = true
    if keys[newest] >= g or (period > 0 and now >= start[newest] + period * (1 - keys[newest] / g)) then shift(now) end
  end
  if present then out[i + 1] = '0' else out[i + 1] = '1'; added = added + 1 end
end
local write = { 'newest', newest }
for j, _ in pairs(touched) do
  write[#write + 1] = 'keys:' .. j; write[#write + 1] = keys[j]
  write[#write + 1] = 'start:' .. j; write[#write + 1] = string.format('%.17g', start[j])
end
redis.call('HSET', meta, unpack(write))
if added > 0 then redis.call('HINCRBY', meta, 'count', added) end
return table.concat(out)
`;

/**
 * A new window's state, as WindowBloomFilter.create leaves it: KEYS[1] the meta hash; ARGV[1] k + l, ARGV[2] the
 * period (0: a count window), ARGV[3] and ARGV[4] the clock as in the prologue above. The older (empty) generations
 * began a period apart before now.
 */
export const WINDOW_FRESH: string = `${READ_NOW}
local h, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = 0
if period > 0 then
  local skew
  now, skew = readNow(ARGV[3], ARGV[4])
  if now == nil then return redis.error_reply('${CLOCK_REPLY} ' .. skew) end
end
local write = { 'newest', 0 }
for j = 0, h - 1 do
  write[#write + 1] = 'keys:' .. j; write[#write + 1] = 0
  write[#write + 1] = 'start:' .. j; write[#write + 1] = string.format('%.17g', now - j * period)
end
redis.call('HSET', KEYS[1], unpack(write))
return 1
`;

/**
 * Membership of a batch in a window, read-only: generations whose time is up are not ended here, but their
 * effect is: with P of them pending, the P oldest slices count as cleared, so a key needs its run among the ages
 * 0 … k + l − 1 − P. '1' per key present.
 */
export const WINDOW_HAS: string = `${WINDOW_PROLOGUE}
local last = h - 1
if period > 0 then
  local held, began = keys[newest], start[newest]
  for pending = 0, h do
    local e = began + period * (1 - held / g)
    if now < e or (held == 0 and began == now) or pending == h then last = h - 1 - pending; break end
    held = 0; began = e
  end
end
local out = {}
for i = 0, n - 1 do
  if last >= 0 and holds(i, last, nil) then out[i + 1] = '1' else out[i + 1] = '0' end
end
return table.concat(out)
`;
