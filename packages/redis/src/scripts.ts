import { MAX_SUB_FILTERS } from '@bloomkit/scalable';
import { GONE_REPLY } from './errors.js';

/**
 * The Lua run inside Redis, for what one BITFIELD command cannot express (adds and lookups are pre-encoded
 * BITFIELD commands, see bitfield.ts): exceptions, checked deletes, the scalable chain's test-and-add with growth,
 * and the create-unless-exists; a window's scripts are in window-scripts.ts. Each script takes a batch of keys'
 * positions as one binary argument (little-endian u32 offsets, k per key): thousands of small arguments would cost
 * the client more CPU than Redis spends on the work.
 * A script runs atomically and touches only the keys passed in KEYS, all in one cluster slot.
 */

/** Shared Lua: reads offset `i` (0-based) of the packed argument. */
export const OFFSET: string = `
local byte = string.byte
local function offset(packed, i)
  local b1, b2, b3, b4 = byte(packed, 4 * i + 1, 4 * i + 4)
  return b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
end
`;

/**
 * Shared Lua: fails with a BLOOMKIT_GONE error reply unless the string KEYS[1] holds the guard ARGV[1] (the
 * generation) at bit offset ARGV[2] (see guard.ts). Reading a missing string creates nothing.
 */
const GUARD = `
if redis.call('BITFIELD_RO', KEYS[1], 'GET', 'u32', ARGV[2])[1] ~= tonumber(ARGV[1]) then
  return redis.error_reply('${GONE_REPLY} the filter no longer exists')
end
`;

/** Shared Lua: the key at byte `pos` (1-based) of a packed keys argument (u32 LE length, bytes), and the next pos. */
const KEY_AT = `
local function keyAt(keys, pos)
  local b1, b2, b3, b4 = byte(keys, pos, pos + 3)
  local n = b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
  return string.sub(keys, pos + 4, pos + 3 + n), pos + 4 + n
end
`;

/**
 * The exception scripts' common start (a filter with exceptions, docs of RedisBloomFilter.addException): KEYS[1]
 * the bits (guard checked), KEYS[2] the set of exception keys beside them (one slot); ARGV[3] k, ARGV[4] packed
 * offsets, ARGV[5] the packed keys (u32 length and bytes each), in the same order. `answer(per)` runs `per(i, key)`
 * for each key and returns its one-character answers, concatenated.
 */
const EXCEPTIONS_PROLOGUE = `${OFFSET}${GUARD}${KEY_AT}
local k = tonumber(ARGV[3])
local packed = ARGV[4]
local keys = ARGV[5]
local n = #packed / (4 * k)
local bits = KEYS[1]
local set = KEYS[2]
local function holds(i)
  for h = i * k, i * k + k - 1 do
    if redis.call('GETBIT', bits, offset(packed, h)) == 0 then return false end
  end
  return true
end
local function answer(per)
  local out = {}
  local pos = 1
  for i = 0, n - 1 do
    local key
    key, pos = keyAt(keys, pos)
    out[i + 1] = per(i, key)
  end
  return table.concat(out)
end
`;

/** Membership with exceptions: '1' when all k bits are set and the key is not in the set. */
export const EXCEPTIONS_HAS: string = `${EXCEPTIONS_PROLOGUE}
return answer(function(i, key)
  if holds(i) and redis.call('SISMEMBER', set, key) == 0 then return '1' end
  return '0'
end)
`;

/**
 * Test-and-add with exceptions, as ExceptionFilter.add: sets the key's k bits and removes it from the set, in one
 * step. '1' when a bit changed (counted), '2' when only an exception was lifted (true, not counted), '0' otherwise.
 */
export const EXCEPTIONS_ADD: string = `${EXCEPTIONS_PROLOGUE}
return answer(function(i, key)
  local changed = false
  for h = i * k, i * k + k - 1 do
    if redis.call('SETBIT', bits, offset(packed, h), 1) == 0 then changed = true end
  end
  local lifted = redis.call('SREM', set, key) == 1
  if changed then return '1' elseif lifted then return '2' end
  return '0'
end)
`;

/**
 * Records exceptions, as ExceptionFilter.addException: a key goes into the set only when all its k bits are set
 * ('1'); '0' when the filter answers absent or the key is listed already. A set created here takes the bits' TTL.
 */
export const EXCEPTIONS_RECORD: string = `${EXCEPTIONS_PROLOGUE}
local fresh = redis.call('EXISTS', set) == 0
local out = answer(function(i, key)
  if holds(i) and redis.call('SADD', set, key) == 1 then return '1' end
  return '0'
end)
if fresh and redis.call('EXISTS', set) == 1 then
  local ttl = redis.call('PTTL', bits)
  if ttl > 0 then redis.call('PEXPIRE', set, ttl) end
end
return out
`;

/** Removes exceptions: '1' for a key that was in the set. KEYS and ARGV as the others (offsets unused). */
export const EXCEPTIONS_REMOVE: string = `${EXCEPTIONS_PROLOGUE}
return answer(function(i, key)
  return tostring(redis.call('SREM', set, key))
end)
`;

/**
 * Delete for counters, as CountingBloomFilter.delete: a key is removed only when each of its counters is non-zero
 * and, unless saturated, at least as large as the number of times its position repeats among the key's k; then each
 * unsaturated counter is decremented once per occurrence (a saturated one stays), and `count` drops by one when
 * some counter reached zero. KEYS[1] the counters, KEYS[2] the meta hash. ARGV[1] and ARGV[2] the guard
 * (generation, offset), ARGV[3] k, ARGV[4] type, ARGV[5] the counters' maximum, ARGV[6] packed offsets. '1' deleted,
 * '0' absent (nothing changed).
 */
export const COUNTERS_DELETE: string = `${OFFSET}${GUARD}
local k = tonumber(ARGV[3])
local ctype = ARGV[4]
local max = tonumber(ARGV[5])
local packed = ARGV[6]
local n = #packed / (4 * k)
local out = {}
local left = 0
for j = 0, n - 1 do
  local offsets = {}
  local get = {}
  for h = 1, k do
    offsets[h] = offset(packed, j * k + h - 1)
    get[3 * h - 2] = 'GET'; get[3 * h - 1] = ctype; get[3 * h] = offsets[h]
  end
  local values = redis.call('BITFIELD_RO', KEYS[1], unpack(get))
  local ok = true
  for h = 1, k do
    local times = 0
    for g = 1, k do
      if offsets[g] == offsets[h] then times = times + 1 end
    end
    if values[h] == 0 or (values[h] ~= max and values[h] < times) then ok = false; break end
  end
  if ok then
    local dec = { 'OVERFLOW', 'WRAP' }
    for h = 1, k do
      if values[h] ~= max then
        dec[#dec + 1] = 'INCRBY'; dec[#dec + 1] = ctype; dec[#dec + 1] = offsets[h]; dec[#dec + 1] = -1
      end
    end
    local reached = false
    if #dec > 2 then
      local now = redis.call('BITFIELD', KEYS[1], unpack(dec))
      for h = 1, #now do
        if now[h] == 0 then reached = true end
      end
    end
    if reached then left = left + 1 end
    out[j + 1] = '1'
  else
    out[j + 1] = '0'
  end
end
if left > 0 then
  local count = tonumber(redis.call('HGET', KEYS[2], 'count') or '0') or 0
  redis.call('HSET', KEYS[2], 'count', math.max(0, count - left))
end
return table.concat(out)
`;

/**
 * The scalable scripts' common start: a BLOOMKIT_GONE error unless the meta hash holds the client's generation (the
 * last ARGV), the chain's length C (checked: 1 to MAX_SUB_FILTERS; stale client when it knows fewer than C − 1 sub-filters),
 * and for each sub-filter j = 0..F the client sent, its k, capacity and bytes, and where its offsets start among a
 * key's.
 */
const SCALABLE_PROLOGUE = `${OFFSET}
local meta = KEYS[1]
local F = #KEYS - 2
local state = redis.call('HMGET', meta, 'generation', 'filters')
if state[1] ~= ARGV[#ARGV] then return redis.error_reply('${GONE_REPLY} the filter no longer exists') end
-- Counts as the functions read them: decimal digits only (no sign, fraction, exponent, hex or spaces).
local function digits(text)
  if type(text) ~= 'string' or #text > 16 or not string.match(text, '^%d+$') then return nil end
  return tonumber(text)
end
local C = digits(state[2])
if C == nil or C < 1 or C > ${MAX_SUB_FILTERS} then return redis.error_reply('BLOOMKIT_BADMETA filters') end
-- The newest sub-filter's count (absent is 0), checked on every call, lookups too, as the functions check it.
local newestText = redis.call('HGET', meta, 'count:' .. (C - 1))
local newest = 0
if newestText then newest = digits(newestText) end
if newest == nil or newest > 9007199254740991 then return redis.error_reply('BLOOMKIT_BADMETA count:' .. (C - 1)) end
if C > F + 1 then return { 1, C, '' } end
local ks, caps, sizes, starts = {}, {}, {}, {}
local per = 0
for j = 0, F do
  ks[j] = tonumber(ARGV[2 + 3 * j]); caps[j] = tonumber(ARGV[3 + 3 * j]); sizes[j] = tonumber(ARGV[4 + 3 * j])
  starts[j] = per
  per = per + ks[j]
end
-- A sub-filter of the chain gone (evicted, deleted) is the filter gone: never recreated empty by the writes below.
for j = 0, C - 1 do
  if redis.call('STRLEN', KEYS[j + 2]) ~= sizes[j] then return redis.error_reply('${GONE_REPLY} the filter no longer exists (a sub-filter is gone)') end
end
`;

/**
 * Scalable test-and-add, growth included, as ScalableBloomFilter.add: a key present in some sub-filter (newest
 * first) is not added; a new key goes into the newest sub-filter, after chaining the next one when the newest
 * holds its capacity. KEYS[1] the meta hash, KEYS[2 + j] sub-filter j for j = 0..F, the sub-filters the client
 * computed positions for (the ones it knows and the next). ARGV[1] the packed offsets, for each key those of
 * sub-filters 0..F in order; ARGV[2 + 3j .. 4 + 3j] k, capacity and bytes of sub-filter j. Returns {status, C,
 * answers}: status 0 when every key was answered; 1 when the chain grew past F (the client computes the next
 * sub-filter's positions and sends the keys not yet answered).
 */
export const SCALABLE_ADD: string = `${SCALABLE_PROLOGUE}
local total = redis.call('HGET', meta, 'count')
if total and not string.match(total, '^%d+$') then return redis.error_reply('BLOOMKIT_BADMETA count') end
local packed = ARGV[1]
local n = #packed / (4 * per)
local firstC = C
local out = {}
local added = 0
local status = 0
local function holds(i, j)
  local args = {}
  local base = i * per + starts[j]
  for h = 0, ks[j] - 1 do
    args[3 * h + 1] = 'GET'; args[3 * h + 2] = 'u1'; args[3 * h + 3] = offset(packed, base + h)
  end
  local bits = redis.call('BITFIELD_RO', KEYS[j + 2], unpack(args))
  for h = 1, ks[j] do
    if bits[h] == 0 then return false end
  end
  return true
end
for i = 0, n - 1 do
  local present = false
  for j = C - 1, 0, -1 do
    if holds(i, j) then present = true; break end
  end
  if present then
    out[i + 1] = '0'
  else
    if newest >= caps[C - 1] then
      if C > F then status = 1; break end
      redis.call('HSET', meta, 'count:' .. (C - 1), newest)
      redis.call('DEL', KEYS[C + 2])
      redis.call('SETRANGE', KEYS[C + 2], sizes[C] - 1, '\\0')
      local ttl = redis.call('PTTL', meta)
      if ttl > 0 then redis.call('PEXPIRE', KEYS[C + 2], ttl) end
      C = C + 1
      newest = 0
      redis.call('HSET', meta, 'filters', C)
    end
    local args = {}
    local base = i * per + starts[C - 1]
    for h = 0, ks[C - 1] - 1 do
      args[4 * h + 1] = 'SET'; args[4 * h + 2] = 'u1'; args[4 * h + 3] = offset(packed, base + h); args[4 * h + 4] = 1
    end
    redis.call('BITFIELD', KEYS[C + 1], unpack(args))
    newest = newest + 1
    added = added + 1
    out[i + 1] = '1'
  end
end
if added > 0 then
  redis.call('HSET', meta, 'count:' .. (C - 1), newest)
  redis.call('HINCRBY', meta, 'count', added)
end
return { status, C, table.concat(out) }
`;

/** Scalable membership: '1' when some sub-filter holds the key. KEYS and ARGV as SCALABLE_ADD. */
export const SCALABLE_HAS: string = `${SCALABLE_PROLOGUE}
local packed = ARGV[1]
local n = #packed / (4 * per)
local out = {}
for i = 0, n - 1 do
  local present = '0'
  for j = C - 1, 0, -1 do
    local args = {}
    local base = i * per + starts[j]
    for h = 0, ks[j] - 1 do
      args[3 * h + 1] = 'GET'; args[3 * h + 2] = 'u1'; args[3 * h + 3] = offset(packed, base + h)
    end
    local bits = redis.call('BITFIELD_RO', KEYS[j + 2], unpack(args))
    local all = true
    for h = 1, ks[j] do
      if bits[h] == 0 then all = false; break end
    end
    if all then present = '1'; break end
  end
  out[i + 1] = present
end
return { 0, C, table.concat(out) }
`;

/**
 * Deletes a filter's meta hash if it still holds the generation ARGV[1] (a drop through an old handle must not
 * delete a newer filter of the same name). KEYS[1] the meta hash.
 */
export const DROP_META: string = `
if redis.call('HGET', KEYS[1], 'generation') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Creates a filter's meta hash unless one exists, atomically. KEYS[1] the meta hash; ARGV the field/value pairs.
 * Returns nil when it created it, else the existing hash (HGETALL) for the caller to compare.
 */
export const CREATE: string = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
redis.call('HSET', KEYS[1], unpack(ARGV))
return false
`;

/**
 * A test-and-add of one string's batch with its count, in one atomic step (bits and counters of one string:
 * standard, partitioned, counting). KEYS[1] the meta hash, KEYS[2] the string; ARGV[1] the generation, ARGV[2] the
 * string's length (payload and guard), ARGV[3] k, ARGV[4] the value that makes a key new (0: an old bit; 1: a counter
 * just raised from 0), ARGV[5] '1' to saturate counters (OVERFLOW SAT), ARGV[6..] the BITFIELD subcommands, k per
 * key. Nothing is written unless the meta hash holds the generation and the string is there at its length, so an
 * add never goes into storage whose meta is gone, nor recreates storage that is gone (${GONE_REPLY}). The
 * subcommands run in BITFIELDs of at most 6,000 arguments (Lua's unpack limit is about 8,000), all in this one
 * script; \`count\` grows by the new keys before it returns. Returns one character per key: '1' new, '0' present.
 */
export const COUNTED_ADD: string = `
if redis.call('HGET', KEYS[1], 'generation') ~= ARGV[1] then return redis.error_reply('${GONE_REPLY} the filter no longer exists') end
if redis.call('STRLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return redis.error_reply('${GONE_REPLY} the filter no longer exists') end
local total = redis.call('HGET', KEYS[1], 'count')
if total and not string.match(total, '^%d+$') then return redis.error_reply('BLOOMKIT_BADMETA count') end
local k, newWhen = tonumber(ARGV[3]), tonumber(ARGV[4])
local values, n = {}, 0
local step = 6000 - 6000 % (4 * k)
if step == 0 then step = 4 * k end
for at = 6, #ARGV, step do
  local last = math.min(#ARGV, at + step - 1)
  local reply
  if ARGV[5] == '1' then reply = redis.call('BITFIELD', KEYS[2], 'OVERFLOW', 'SAT', unpack(ARGV, at, last))
  else reply = redis.call('BITFIELD', KEYS[2], unpack(ARGV, at, last)) end
  for i = 1, #reply do values[n + i] = reply[i] end
  n = n + #reply
end
local out, added = {}, 0
for i = 0, n / k - 1 do
  local new = '0'
  for h = i * k + 1, i * k + k do
    if values[h] == newWhen then new = '1'; break end
  end
  if new == '1' then added = added + 1 end
  out[i + 1] = new
end
if added > 0 then redis.call('HINCRBY', KEYS[1], 'count', added) end
return table.concat(out)
`;
