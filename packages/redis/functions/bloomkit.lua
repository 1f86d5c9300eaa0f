#!lua name=bloomkit
--[[
bloomkit's filters served by Redis Functions (Redis 7.0+, Valkey 7.2+): any client that can send FCALL adds to and
queries the filter that @bloomkit/redis keeps in Redis, bit for bit what a Node handle, an exported file and a local
filter hold. Load it with

    redis-cli -x FUNCTION LOAD REPLACE < bloomkit.lua

or RedisBloomFilter.installFunctions(client), which refuses to replace a newer version (bk_version says which one a
server holds).

Every verb is called as FCALL bk_verb 1 NAME args..., NAME being the filter's name: its one key argument, so a
cluster client routes the call to the slot of the filter's hash tag {NAME}, where every key of the filter lives.
The replies are RedisBloom's shapes (BF.ADD, BF.MADD, BF.EXISTS...); errors start with "ERR bloomkit:".

The filter's keys, meta hash fields and bytes are those of @bloomkit/redis (packages/redis/src/keys.ts, params.ts,
guard.ts); the hashing and positions are docs/FORMAT.md sections 4 and 5.

Kinds served: standard, partitioned and counting (4- or 8-bit counters), exceptions over standard and partitioned,
scalable (the chain grows on the server, by the sub-filter shapes its meta hash lists), window filters that
@bloomkit/redis created (count and time windows, on the server's clock or the caller's), cuckoo filters (adds,
deletes and copies counted on the server, whole or nothing), binary fuse filters that bloomkit push or
RedisBloomFilter.import wrote (a fixed set: bk_exists, bk_mexists, bk_card, bk_info), and blocked filters one shard
per call.
]]

local VERSION = 6

-- lua/base.lua ------------------------------------------------------------------------------------------------

-- base.lua: what every script of bloomkit's server side starts from (the function library and each script the
-- Node client sends): Lua's library functions as locals, the limits shared with @bloomkit/core, refusals, and the
-- parsing of the decimal numbers that the meta hash and the arguments hold.

-- Redis 7.0 loads a function library with none of Lua's libraries in reach (string, math, bit are there only when a
-- function runs), so their functions are taken on the first call (each door's wrapper calls takeLibraries).
local byte, char, sub, format, match, upper, floor, ceil, log, exp, max, min
local bxor, rol, rshift, call, spread
local function takeLibraries()
  byte, char, sub, format, match, upper = string.byte, string.char, string.sub, string.format, string.match, string.upper
  floor, ceil, log, exp, max, min = math.floor, math.ceil, math.log, math.exp, math.max, math.min
  bxor, rol, rshift, call, spread = bit.bxor, bit.rol, bit.rshift, redis.call, unpack
end

local TWO32 = 4294967296
local MAX_SAFE = 9007199254740991
local MAX_HASHES = 64
local MAX_STRING_BYTES = 536870912 -- Redis's largest string (proto-max-bulk-len's default)
local GUARD_BYTES = 4
local MAX_NAME_BYTES = 2048
local FORMAT_TAG = 'bloomkit/1'
local BLOCK_BITS = 512 -- a block of the blocked layout: one 64-byte cache line
local MAX_BLOCKED_BITS = 2 ^ 41 -- as @bloomkit/core's MAX_BLOCKED_BITS
local MAX_SHARDS = 2 ^ 20
local MAX_CLOCK_MS = 2 ^ 47 -- as @bloomkit/core's MAX_CLOCK_MS: a time in ms a window accepts
local MAX_SUB_FILTERS = 512 -- as @bloomkit/scalable's MAX_SUB_FILTERS
local MAX_AGE_SLICES = 255 -- the format's bound (the sizing of @bloomkit/window picks at most 16)

-- a * c mod 2^32 for 32-bit words a and c (numbers are doubles): a * lo + (a * hi mod 2^16) * 2^16 with c split in
-- 16-bit halves, each product below 2^48, exact (MurmurHash3's multiplies, hash.lua; fuse.lua's 64-bit products).
local function mul(a, c)
  local lo = c % 65536
  return (a * lo + (a * ((c - lo) / 65536) % 65536) * 65536) % TWO32
end

-- A refusal: unwinds to the door's wrapper (door-functions.lua, door-eval.lua), which turns it into the error reply
-- (and nothing after it runs). The mark tells it from a Lua error or a failed redis.call, passed on as they are.
local FAIL_MARK = '\0bloomkit\0'

local function fail(message)
  error(FAIL_MARK .. message, 0)
end

-- The two refusals every rule may meet, each door's own words (door-functions.lua, door-eval.lua): `gone(name,
-- detail)` when the filter's storage is not there (expired, dropped, evicted: never recreated empty), and
-- `badMeta(name, field, range, value)` when a meta hash field is not what bloomkit writes (any client can write it).
local gone, badMeta

-- A value for an error message: quoted, cut at 40 characters.
local function show(value)
  if value == nil then return '(missing)' end
  local text = tostring(value)
  if #text > 40 then text = sub(text, 1, 40) .. '...' end
  return "'" .. text .. "'"
end

-- An unsigned decimal integer in [min, max], or nil: digits only (no sign, fraction, exponent, hex or spaces), as
-- every count and index in the meta hash is written.
local function integer(text, min, max)
  if type(text) ~= 'string' or #text > 16 or not match(text, '^%d+$') then return nil end
  local value = tonumber(text)
  if value < min or value > max then return nil end
  return value
end

local function metaKey(name) return 'bloomkit:{' .. name .. '}:meta' end

-- The meta hash's `count` (adds that changed the filter) from its text: absent is 0, else an integer in
-- [0, 2^53 - 1]. Checked before a call writes anything, so a count HINCRBY cannot add to never fails it half-way.
local function checkCount(name, text)
  if not text then return 0 end
  local value = integer(text, 0, MAX_SAFE)
  if value == nil then badMeta(name, 'count', format('an integer in [0, %.0f]', MAX_SAFE), text) end
  return value
end

local function countOf(key, name)
  return checkCount(name, call('HGET', key, 'count'))
end

-- lua/ledger.lua ----------------------------------------------------------------------------------------------

-- ledger.lua: a write applied once under replay. A client resends a call whose reply it lost (ioredis does on a
-- dropped connection, by default; other clients when told to retry), and a cuckoo add or delete, a counter's raise
-- or a count sent twice would be applied twice. A write called with an id remembers its reply in the ledger of its
-- slot, the hash bloomkit:{TAG}:calls (TAG the filter's name, or NAME/i for shard i of a blocked filter), and a call
-- whose id the ledger holds returns that reply and changes nothing. A refusal is not remembered (it wrote nothing).
--
-- The ledger is bounded: it keeps the replies of the last ledger.CALLS ids of its slot (field r:j holds the id of
-- ring slot j, field c:ID its reply, packed with cmsgpack) and expires ledger.SECONDS after its last write, so a call
-- resent later than that, or after that many newer calls, is applied again. One id names one call: an id sent again
-- with other arguments gets the first call's reply.
-- One table, not locals: the function library is one chunk, and Lua allows it 200 locals.
local ledger = { CALLS = 1024, SECONDS = 600, MAX_ID_BYTES = 64 }

function ledger.key(tag) return 'bloomkit:{' .. tag .. '}:calls' end

-- Refuses an id that is empty or longer than MAX_ID_BYTES (a random token of 16 to 36 characters is what clients send).
function ledger.checkId(where, id)
  if type(id) ~= 'string' or #id == 0 or #id > ledger.MAX_ID_BYTES then
    fail(format('%s: ID must be a token of 1 to %d bytes, got %s', where, ledger.MAX_ID_BYTES, show(id)))
  end
  return id
end

-- The reply the ledger `key` holds for `id`, or nil.
function ledger.recall(key, id)
  local kept = call('HGET', key, 'c:' .. id)
  if not kept then return nil end
  return cmsgpack.unpack(kept)
end

-- Remembers `reply` for `id` in the ledger `key`, forgetting the id ledger.CALLS calls older, and renews its time:
-- ledger.SECONDS, or less when the filter's key `owner` expires sooner (a ledger never outlives its filter's TTL).
function ledger.remember(key, id, reply, owner)
  local slot = call('HINCRBY', key, 'next', 1) % ledger.CALLS
  local old = call('HGET', key, 'r:' .. slot)
  if old then call('HDEL', key, 'c:' .. old) end
  call('HSET', key, 'r:' .. slot, id, 'c:' .. id, cmsgpack.pack(reply))
  local left = owner and call('PTTL', owner) or -1
  if left > 0 and left < ledger.SECONDS * 1000 then call('PEXPIRE', key, left)
  else call('EXPIRE', key, ledger.SECONDS) end
end

-- `body()`'s reply, applied once for `id` in the ledger `key` (its time capped by `owner`'s, when given): the kept
-- reply when the ledger holds the id.
function ledger.once(key, id, body, owner)
  local kept = ledger.recall(key, id)
  if kept ~= nil then return kept end
  local reply = body()
  ledger.remember(key, id, reply, owner)
  return reply
end

-- lua/door-functions.lua --------------------------------------------------------------------------------------

-- door-functions.lua: the door of the function library (FCALL bk_*): a refusal becomes the error reply
-- "ERR bloomkit: message", naming the filter and what is wrong, for a reader of any client.

gone = function(name, detail)
  fail('no filter ' .. name .. (detail and ' (' .. detail .. ')' or ''))
end

badMeta = function(name, field, range, value)
  fail(format('meta field %s of %s must be %s, got %s', field, metaKey(name), range, show(value)))
end

-- Wraps a verb so that a fail() anywhere in it becomes the error reply (and nothing after it runs).
local function verb(body)
  return function(keys, args)
    if call == nil then takeLibraries() end
    local ok, result = pcall(body, keys, args)
    if ok then return result end
    if type(result) == 'string' and sub(result, 1, #FAIL_MARK) == FAIL_MARK then
      return redis.error_reply('ERR bloomkit: ' .. sub(result, #FAIL_MARK + 1))
    end
    -- A failed redis.call (no memory, no permission, a key of another type) comes as its reply's text, which starts
    -- with the error's code (ERR, OOM, NOPERM, WRONGTYPE...): replied as it is.
    if type(result) == 'string' and match(result, '^%u+ ') then return redis.error_reply(result) end
    error(result, 0)
  end
end

-- lua/numbers.lua ---------------------------------------------------------------------------------------------

-- numbers.lua: the numbers of the functions' arguments and of the meta hash's decimal fields (integers are base.lua's).

-- A decimal number (digits, point, exponent; no hex, inf or nan) in [low, high], or nil.
local function decimal(text, low, high)
  if type(text) ~= 'string' or #text > 40 or not match(text, '^%d*%.?%d*[eE]?[-+]?%d*$') then return nil end
  local value = tonumber(text)
  if value == nil or not (value >= low and value <= high) then return nil end
  return value
end

-- A decimal number strictly between 0 and 1, or nil.
local function rate(text)
  local value = decimal(text, 0, 1)
  if value == nil or value == 0 or value == 1 then return nil end
  return value
end

-- The shortest of %.15g, %.16g and %.17g that reads back as x: how the meta hash keeps a rate (as JavaScript
-- would print it in almost every case, and always read back exactly).
local function exact(x)
  for digits = 15, 17 do
    local text = format('%.' .. digits .. 'g', x)
    if tonumber(text) == x then return text end
  end
  return format('%.17g', x)
end

local function argInteger(where, name, text, min, max)
  local value = integer(text, min, max)
  if value == nil then fail(format('%s: %s must be an integer in [%.0f, %.0f], got %s', where, name, min, max, show(text))) end
  return value
end

-- A clock reading in ms since the epoch, as a client's clock gives it: digits with an optional fraction (no sign, no
-- exponent), read as the nearest double (as JavaScript's String(ms) round-trips), in [0, 2^47].
local function argTime(where, name, text)
  local value = #text <= 40 and (text:match('^%d+$') or text:match('^%d+%.%d+$')) and tonumber(text)
  if not value or value > MAX_CLOCK_MS then
    fail(format('%s: %s must be a time in ms since the epoch, digits with an optional fraction, in [0, %.0f], got %s',
      where, name, MAX_CLOCK_MS, show(text)))
  end
  return value
end

-- lua/hash.lua ------------------------------------------------------------------------------------------------

-- MurmurHash3 x86_128 (docs/FORMAT.md section 4) in doubles ----------------------------------------------------------
-- Lua numbers are doubles and bit.* works on 32 bits: a product of two 32-bit words is base.lua's `mul`, taken modulo
-- 2^32 in exact 16-bit pieces; sums are taken modulo 2^32 with %, exact for integers below 2^53.

local C1, C2, C3, C4 = 0x239b961b, 0xab0e9789, 0x38b34ae5, 0xa1e38b93
local C1L, C2L, C3L, C4L = C1 % 65536, C2 % 65536, C3 % 65536, C4 % 65536
local C1H, C2H, C3H, C4H = (C1 - C1L) / 65536, (C2 - C2L) / 65536, (C3 - C3L) / 65536, (C4 - C4L) / 65536

local function fmix(h)
  h = bxor(h, rshift(h, 16))
  h = mul(h, 0x85ebca6b)
  h = bxor(h, rshift(h, 13))
  h = mul(h, 0xc2b2ae35)
  h = bxor(h, rshift(h, 16))
  return h % TWO32
end

-- The four words h1..h4 of MurmurHash3_x86_128(key, seed), each in [0, 2^32).
local function murmur(key, seed)
  local len = #key
  local h1, h2, h3, h4 = seed, seed, seed, seed
  local k1, k2, k3, k4
  local blocks = len - len % 16
  for at = 1, blocks, 16 do
    local a1, a2, a3, a4, b1, b2, b3, b4, c1, c2, c3, c4, d1, d2, d3, d4 = byte(key, at, at + 15)
    k1 = a1 + a2 * 256 + a3 * 65536 + a4 * 16777216
    k2 = b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
    k3 = c1 + c2 * 256 + c3 * 65536 + c4 * 16777216
    k4 = d1 + d2 * 256 + d3 * 65536 + d4 * 16777216
    -- k1 *= C1; k1 = rotl(k1, 15); k1 *= C2; h1 ^= k1 (inlined mul: this loop is the hash's cost)
    k1 = (k1 * C1L + (k1 * C1H % 65536) * 65536) % TWO32
    k1 = rol(k1, 15)
    k1 = (k1 * C2L + (k1 * C2H % 65536) * 65536) % TWO32
    h1 = ((rol(bxor(h1, k1), 19) + h2) * 5 + 0x561ccd1b) % TWO32
    k2 = (k2 * C2L + (k2 * C2H % 65536) * 65536) % TWO32
    k2 = rol(k2, 16)
    k2 = (k2 * C3L + (k2 * C3H % 65536) * 65536) % TWO32
    h2 = ((rol(bxor(h2, k2), 17) + h3) * 5 + 0x0bcaa747) % TWO32
    k3 = (k3 * C3L + (k3 * C3H % 65536) * 65536) % TWO32
    k3 = rol(k3, 17)
    k3 = (k3 * C4L + (k3 * C4H % 65536) * 65536) % TWO32
    h3 = ((rol(bxor(h3, k3), 15) + h4) * 5 + 0x96cd1c35) % TWO32
    k4 = (k4 * C4L + (k4 * C4H % 65536) * 65536) % TWO32
    k4 = rol(k4, 18)
    k4 = (k4 * C1L + (k4 * C1H % 65536) * 65536) % TWO32
    h4 = ((rol(bxor(h4, k4), 13) + h1) * 5 + 0x32ac3b17) % TWO32
  end
  local rest = len - blocks
  if rest > 0 then
    local t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15 = byte(key, blocks + 1, len)
    if rest > 12 then
      k4 = t13 + (t14 or 0) * 256 + (t15 or 0) * 65536
      h4 = bxor(h4, mul(rol(mul(k4, C4), 18), C1))
    end
    if rest > 8 then
      k3 = t9 + (t10 or 0) * 256 + (t11 or 0) * 65536 + (t12 or 0) * 16777216
      h3 = bxor(h3, mul(rol(mul(k3, C3), 17), C4))
    end
    if rest > 4 then
      k2 = t5 + (t6 or 0) * 256 + (t7 or 0) * 65536 + (t8 or 0) * 16777216
      h2 = bxor(h2, mul(rol(mul(k2, C2), 16), C3))
    end
    k1 = t1 + (t2 or 0) * 256 + (t3 or 0) * 65536 + (t4 or 0) * 16777216
    h1 = bxor(h1, mul(rol(mul(k1, C1), 15), C2))
  end
  h1 = bxor(h1, len) % TWO32
  h2 = bxor(h2, len) % TWO32
  h3 = bxor(h3, len) % TWO32
  h4 = bxor(h4, len) % TWO32
  h1 = (h1 + h2 + h3 + h4) % TWO32
  h2 = (h2 + h1) % TWO32
  h3 = (h3 + h1) % TWO32
  h4 = (h4 + h1) % TWO32
  h1, h2, h3, h4 = fmix(h1), fmix(h2), fmix(h3), fmix(h4)
  h1 = (h1 + h2 + h3 + h4) % TWO32
  h2 = (h2 + h1) % TWO32
  h3 = (h3 + h1) % TWO32
  h4 = (h4 + h1) % TWO32
  return h1, h2, h3, h4
end

-- Positions (docs/FORMAT.md section 5, narrow: every range here is at most 2^32) ------------------------------------
-- p(i) = h1 + h2 i + h3 i^2 + h4 i^3 mod 2^32 by forward differences, offset_i = floor(p(i) * sigma) with
-- sigma = M * 2^-32 (one IEEE multiply, as the format says), position i = i * stride + offset_i.

-- Writes the k positions of the key whose hash is h1..h4 into `out` (1-based) for a filter `shape` {seed, k, sigma,

-- lua/positions.lua -------------------------------------------------------------------------------------------

-- stride}; positions() hashes the key first.
local function positionsOfHash(shape, p, d1, d2, d3, out)
  d1, d2, d3 = (d1 + d2 + d3) % TWO32, (2 * d2 + 6 * d3) % TWO32, 6 * d3 % TWO32
  local sigma, stride = shape.sigma, shape.stride
  for i = 0, shape.k - 1 do
    out[i + 1] = i * stride + floor(p * sigma)
    p = (p + d1) % TWO32
    d1 = (d1 + d2) % TWO32
    d2 = (d2 + d3) % TWO32
  end
  return out
end

local function positions(shape, key, out)
  local h1, h2, h3, h4 = murmur(key, shape.seed)
  return positionsOfHash(shape, h1, h2, h3, h4, out)
end

-- Redis numbers a string's bits from the most significant of each byte, the format from the least: i XOR 7.
local function bitOffset(i)
  local r = i % 8
  return i - r + 7 - r
end

-- Counter i's BITFIELD offset: byte i (8-bit), or nibble i mod 2 of byte floor(i / 2), low nibble first (4-bit).
local function counterOffset(i, width)
  if width == 8 then return 8 * i end
  local r = i % 2
  return 4 * (i - r) + 4 - 4 * r
end

-- Kinds -------------------------------------------------------------------------------------------------------------
-- The rate formulas are those of @bloomkit/core (params.ts), and sizing is its chooseShape: for every k in [1, 64]
-- the least number of units (m = units * unit(k)) whose predicted rate is at most p, keeping the least m (then the
-- least k). Lua has no log1p and expm1: they are computed from log and exp with the usual correction (Goldberg,
-- "What every computer scientist should know about floating-point arithmetic", 1991, Theorem 4), within a few ulps
-- of core's, so on a boundary the two may pick m one unit apart; a filter is identified by the capacity and rate it

-- lua/cuckoo.lua ----------------------------------------------------------------------------------------------

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

-- lua/fuse.lua ------------------------------------------------------------------------------------------------

-- fuse.lua: a binary fuse filter's fingerprints in one Redis string (BinaryFuseFilter of @bloomkit/fuse, docs/
-- FORMAT.md section 3.8), read by both doors; the set is fixed, so nothing here writes. Fingerprint j is the u8 at
-- byte j, or the u16 little-endian at byte 2j; the guard follows the array.
--
-- A key's 64-bit hash k is the first 64 bits of MurmurHash3 x86_128 (h1 the low word, h2 the high). With the
-- filter's 64-bit seed S: hash = fmix64(k + S) mod 2^64; its fingerprint is the low f bits of hash XOR (hash >> 32);
-- its slots are h0 = floor(hash * cL / 2^64), h1 = (h0 + L) XOR ((hash >> 18) AND (L - 1)), h2 = (h0 + 2L) XOR
-- (hash AND (L - 1)), for segments of L slots and cL = c * L (c segments a first slot may fall in). A key is present
-- when its fingerprint XOR the three slots' is 0.
--
-- Lua's numbers are doubles: a 64-bit value is two 32-bit words (high, low), each in [0, 2^32), and every product is
-- taken over 16-bit halves so that each partial product is below 2^48, exact (as u64.ts of @bloomkit/fuse does).

-- Every rule of the kind lives in this one table (a Lua chunk holds at most 200 locals; the library is one chunk).
local fuse = {
  MAX_SEGMENT_LENGTH = 262144, -- 2^18, the reference's cap
}

-- The 64-bit product of two words, (high, low).
function fuse.mul32(a, b)
  local aLow, bLow = a % 65536, b % 65536
  local aHigh, bHigh = (a - aLow) / 65536, (b - bLow) / 65536
  local middle = aLow * bHigh + aHigh * bLow -- below 2^33
  local middleLow = middle % 65536
  local low = aLow * bLow + middleLow * 65536 -- below 2^33
  local lowWord = low % TWO32
  return (aHigh * bHigh + (middle - middleLow) / 65536 + (low - lowWord) / TWO32) % TWO32, lowWord
end

-- (aHigh:aLow) * (bHigh:bLow) mod 2^64, as (high, low).
function fuse.mul64(aHigh, aLow, bHigh, bLow)
  local high, low = fuse.mul32(aLow, bLow)
  return (high + mul(aHigh, bLow) + mul(aLow, bHigh)) % TWO32, low
end

-- The mixed hash of the key whose 64-bit hash is (high:low), under the seed (seedHigh:seedLow): fmix64 of their
-- sum, MurmurHash3's finalizer (h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53;
-- h ^= h >> 33; a shift by 33 is the high word shifted by 1, into the low word).
function fuse.mix(high, low, seedHigh, seedLow)
  low = low + seedLow
  local carry = low >= TWO32 and 1 or 0
  low = low % TWO32
  high = (high + seedHigh + carry) % TWO32
  high, low = fuse.mul64(high, bxor(low, rshift(high, 1)) % TWO32, 0xff51afd7, 0xed558ccd)
  high, low = fuse.mul64(high, bxor(low, rshift(high, 1)) % TWO32, 0xc4ceb9fe, 0x1a85ec53)
  return high, bxor(low, rshift(high, 1)) % TWO32
end

-- The segments of a set built from `size` keys: L and c, as fuseLayout of @bloomkit/fuse (the reference's sizing,
-- its uint32 steps kept): L = 2^floor(ln(size) / ln(3.33) + 2.25) capped at 2^18 (4 for size 0); a capacity of
-- round(size * max(1.125, 0.875 + 0.25 * ln(10^6) / ln(size))) slots (0 for size <= 1); c = ceil(capacity / L) - 2,
-- at least 1.
function fuse.layout(size)
  local L = 4
  if size > 0 then L = min(fuse.MAX_SEGMENT_LENGTH, 2 ^ floor(log(size) / log(3.33) + 2.25)) end
  local capacity = 0
  if size > 1 then capacity = floor(size * max(1.125, 0.875 + 0.25 * log(1000000) / log(size)) + 0.5) % TWO32 end
  local initial = (floor((capacity + L - 1) / L) - 2) % TWO32
  local arrayLength = ((initial + 2) * L) % TWO32
  local c = floor(((arrayLength + L - 1) % TWO32) / L)
  if c <= 2 then c = 1 else c = c - 2 end
  return L, c
end

-- What a lookup needs of a filter of f-bit fingerprints built from `size` keys with the seed in 16 hex digits.
function fuse.shape(f, size, seedHex)
  local L, c = fuse.layout(size)
  return { f = f, ftype = 'u' .. f, fmask = 2 ^ f - 1, L = L, mask = L - 1, cL = (c * L) % TWO32,
    bits = (c + 2) * L * f, seedHigh = tonumber(sub(seedHex, 1, 8), 16), seedLow = tonumber(sub(seedHex, 9, 16), 16) }
end

-- The three slots of a mixed hash (high:low).
function fuse.slots(s, high, low)
  local band = bit.band
  -- floor(hash * cL / 2^64): the high word of high * cL, plus the carry of its low word and (low * cL)'s high word.
  local upper, lower = fuse.mul32(high, s.cL)
  local carried = fuse.mul32(low, s.cL)
  local first = upper + floor((lower + carried) / TWO32)
  -- (hash >> 18) AND mask: bits 18..35 of the hash, masked.
  local second = bxor(first + s.L, band((high % 16) * 16384 + floor(low / 262144), s.mask))
  return first, second, bxor(first + 2 * s.L, band(low, s.mask))
end

-- A fingerprint as BITFIELD's GET read it: u16 big-endian at the slot's bits, the array's u16 little-endian.
function fuse.value(s, read)
  if s.f == 8 then return read end
  local lowByte = read % 256
  return lowByte * 256 + (read - lowByte) / 256
end

-- Membership of n keys: 1 or 0 each. hashOf(i) gives key i's 64-bit hash (low, high); readAll(offsets, ftype)
-- reads the fingerprints at those bit offsets in order (bits.lua's bitfieldOffsets on the filter's string).
function fuse.hasAll(s, n, hashOf, readAll)
  local offsets, fingerprints = {}, {}
  local band, f = bit.band, s.f
  for i = 1, n do
    local keyLow, keyHigh = hashOf(i)
    local high, low = fuse.mix(keyHigh, keyLow, s.seedHigh, s.seedLow)
    local a, b, c = fuse.slots(s, high, low)
    fingerprints[i] = band(bxor(low, high), s.fmask)
    offsets[3 * i - 2], offsets[3 * i - 1], offsets[3 * i] = a * f, b * f, c * f
  end
  local values = readAll(offsets, s.ftype)
  local out = {}
  for i = 1, n do
    local x = fingerprints[i]
    for j = 3 * i - 2, 3 * i do x = bxor(x, fuse.value(s, values[j])) end
    out[i] = x == 0 and 1 or 0
  end
  return out
end

-- lua/sizing.lua ----------------------------------------------------------------------------------------------

-- was sized for, not by its m (see sameFilter).

local function log1p(x)
  local u = 1 + x
  if u == 1 then return x end
  return log(u) * x / (u - 1)
end

local function expm1(x)
  local u = exp(x)
  if u == 1 then return x end
  local um1 = u - 1
  if um1 == -1 then return -1 end
  return um1 * x / log(u)
end

local function standardRate(m, n, k)
  if m == 1 then return 1 end
  return (-expm1(k * n * log1p(-1 / m))) ^ k
end

local function partitionedRate(m, n, k)
  local s = ceil(m / k)
  if s == 1 then return 1 end
  return (-expm1(n * log1p(-1 / s))) ^ k
end

-- The kinds, each by its storage family (meta.lua checks a family's fields, filters.lua serves it). `creates`: the
-- functions create it (bk_reserve, bk_insert); the others are created by @bloomkit/redis or bloomkit push, which
-- write their shapes into the meta hash.
local KINDS = {
  standard = { storage = 'bits', unit = function() return 1 end, rate = standardRate, sliced = false, creates = true },
  partitioned = { storage = 'bits', unit = function(k) return k end, rate = partitionedRate, sliced = true, creates = true },
  counting = { storage = 'counters', unit = function() return 1 end, rate = standardRate, sliced = false, creates = true },
  -- A chain of partitioned sub-filters in one slot, sub-filter j in bloomkit:{NAME}:sub:j:GEN, the chain's length in
  -- the meta hash's `filters`, each sub-filter's count in `count:j`, and the m and k of every sub-filter the chain may
  -- hold in `shapes` (chain-shapes.ts of @bloomkit/redis).
  scalable = { storage = 'chain', sliced = true, creates = true },
  -- Spans slots: the verbs on its name read its meta only (bk_info, bk_card, bk_shard_count); its items go to their shards
  -- (bk_shard_madd, bk_shard_mexists).
  blocked = { storage = 'shards', unit = function() return 512 end, sliced = false },
  -- k + l slices in one string, the generations' state in the meta hash.
  window = { storage = 'ring', sliced = true },
  -- n buckets of b slots of f bits in one string (cuckoo.lua), the guard after them; f:b:n:kicks in `table`.
  cuckoo = { storage = 'cuckoo', creates = true },
  -- A fixed set: its fingerprints in one string (fuse.lua), the guard after them; f:seed in `fuse`. Built elsewhere
  -- (bloomkit build) and pushed; only read here.
  fuse = { storage = 'fuse' },
}
local KIND_NAMES = 'standard, partitioned, counting, scalable, cuckoo'
local SERVED = 'standard, partitioned, counting, scalable, cuckoo, blocked (by shard), window and fuse (read-only)'

-- m and k for n keys at rate p (chooseShape of @bloomkit/core).
local function chooseShape(kind, n, p, fromK, toK)
  local maxBits = 2 ^ 48
  local bestBits, bestK
  for k = fromK or 1, toK or MAX_HASHES do
    local unit = kind.unit(k)
    local maxUnits = floor(maxBits / unit)
    local function fits(units) return kind.rate(units * unit, n, k) <= p end
    local hi = max(1, min(maxUnits, ceil(min(ceil(-n * log(p) / 0.4804530139182014), maxBits) / unit)))
    while not fits(hi) and hi < maxUnits do hi = min(maxUnits, hi * 2) end
    if fits(hi) then
      local lo = floor(hi / 4)
      if lo > 0 and fits(lo) then lo = 0 end
      while hi - lo > 1 do
        local mid = floor((lo + hi) / 2)
        if fits(mid) then hi = mid else lo = mid end
      end
      local bits = hi * unit
      if bestBits == nil or bits < bestBits then bestBits, bestK = bits, k end
    end
  end
  return bestBits, bestK
end

-- A cuckoo filter's table for n keys at rate p in buckets of b (planShape of @bloomkit/cuckoo): n / (b * load)
-- buckets at the load a table of b-slot buckets is sized for, and the fewest fingerprint bits f in [4, 24] whose rate
-- at that load, 1 - (1 - 1 / (2^f - 1))^(2 b load), is at most p. Returns f and the buckets, or nil when even 24 bits
-- give more than p.
function cuckoo.rate(f, b, load)
  return -expm1(2 * b * load * log(1 - 1 / (2 ^ f - 1)))
end

function cuckoo.size(n, p, b)
  local load = cuckoo.LOAD[b]
  local f = 4
  while f < 24 and cuckoo.rate(f, b, load) > p do f = f + 1 end
  if cuckoo.rate(f, b, load) > p then return nil end
  return f, max(1, ceil(n / (b * load)))
end

-- The schedule of a scalable filter (docs/FORMAT.md section 3.4; Almeida et al., "Scalable Bloom Filters", 2007):
-- sub-filter j holds c_j keys at rate P_j, c_0 = n0, c_(j+1) = ceil(c_j * g), P_0 = P * (1 - r), P_(j+1) = P_j * r,
-- each one IEEE operation, as every reader computes them (never pow). Calls each(j, c_j, P_j) for j = 0, 1, ...
-- while c_j is below 2^53, P_j at least 2^-1022 and j below 512 (the chains a file can hold), until it returns false.
local MIN_GROWTH, MAX_GROWTH, DEFAULT_GROWTH, DEFAULT_TIGHTENING = 1.125, 4, 1.5, 0.93
local function eachSubFilter(n0, fpr, g, r, each)
  local c, p = n0, fpr * (1 - r)
  for j = 0, MAX_SUB_FILTERS - 1 do
    if c > MAX_SAFE or not (p >= 2 ^ -1022) then return end
    if each(j, c, p) == false then return end
    c, p = ceil(c * g), p * r
  end
end

-- The meta hash's `shapes` for a new scalable filter: m:k of every sub-filter of the schedule, sized as the
-- partitioned kind, up to the first that would not fit one Redis string (chainShapes of @bloomkit/redis). Written
-- once: whoever grows the chain reads the next sub-filter's shape there, so no two writers size it apart.
local function chainShapes(n0, fpr, g, r)
  local shapes = {}
  eachSubFilter(n0, fpr, g, r, function(_, c, p)
    -- The best k is within a few of log2(1/p) (the rate is far from it, by whole factors, a few k away), so only
    -- those are tried: a reserve blocks the server, and a chain may list hundreds of sub-filters.
    local around = floor(-log(p) / log(2) + 0.5)
    local bits, k = chooseShape(KINDS.partitioned, c, p, max(1, min(around, MAX_HASHES) - 6), min(MAX_HASHES, around + 6))
    if bits == nil or bits > TWO32 then return false end
    shapes[#shapes + 1] = format('%.0f:%d', bits, k)
  end)
  return table.concat(shapes, ' '), #shapes
end

-- The meta hash: a filter's parameters (params.ts of @bloomkit/redis) ------------------------------------------------

-- lua/meta.lua ------------------------------------------------------------------------------------------------


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

-- lua/budget.lua ----------------------------------------------------------------------------------------------

-- The budget of one call ------------------------------------------------------------------------------------------
-- A function holds the server while it runs: no other client is answered until it returns, and FUNCTION KILL cannot
-- stop it once it has written. So every call is priced before it reads past the meta hash or writes anything, and
-- one whose price is over CALL_BUDGET is refused whole, the reply naming its price and how many such items fit.
--
-- A unit is about a microsecond of Redis 7.0's server time on the development machine (2 cores), measured with a
-- client PINGing every 5 ms during calls of 100 to 5,000 items (README of @bloomkit/redis, "What one call may do"):
-- each item costs ITEM_UNITS (its hash and its reply: 7 us measured), one unit per position read or written (a
-- BITFIELD subcommand: 1 us), one unit per KEY_BYTES_PER_UNIT bytes of items (MurmurHash3 in Lua: 55 ns a byte), and
-- a separate command per sub-filter, slice or set a call consults CALL_UNITS, and one unit per CLEAR_BYTES_PER_UNIT
-- bytes of storage allocated or cleared (SETRANGE of a new string: 0.6 to 0.8 ms a MiB). CALL_BUDGET is half of the
-- 100 ms any call may hold the server, for a machine busier than the one measured; so one call allocates or clears at
-- most 48 MiB (a filter of about 400 million bits).
local CALL_BUDGET = 50000
local ITEM_UNITS = 8
local CALL_UNITS = 2
local KEY_BYTES_PER_UNIT = 16
local CLEAR_BYTES_PER_UNIT = 1024

-- The units of reading items args[from..]: ITEM_UNITS each, plus their bytes.
local function itemUnits(args, from)
  local bytes = 0
  for i = from, #args do bytes = bytes + #args[i] end
  return (#args - from + 1) * ITEM_UNITS + ceil(bytes / KEY_BYTES_PER_UNIT), bytes
end

-- Refuses a call on items args[from..] whose price (their units, `perItem` units more for each, `fixed` units once)
-- is over the budget; nothing has been written when it does. `what` says what an item costs, for the reply.
local function charge(where, args, from, perItem, fixed, what)
  local units, bytes = itemUnits(args, from)
  local n = #args - from + 1
  local price = units + n * perItem + (fixed or 0)
  if price <= CALL_BUDGET then return end
  local each = ITEM_UNITS + perItem + ceil(bytes / n / KEY_BYTES_PER_UNIT)
  local fit = max(0, floor((CALL_BUDGET - (fixed or 0)) / each))
  fail(format('%s: this call would cost %.0f units, more than the %d one call may take (%d items of %.0f bytes on average, %s each); nothing was written: send at most %.0f such items per call (the budget is in the README of @bloomkit/redis)',
    where, price, CALL_BUDGET, n, bytes / n, what, fit))
end

-- The units of allocating or clearing `bytes` bytes of storage.
local function clearUnits(bytes)
  return ceil(bytes / CLEAR_BYTES_PER_UNIT)
end

-- Refuses a call that would allocate or clear `bytes` bytes (beside `units` more), over the budget.
local function chargeClear(where, bytes, units, what)
  if clearUnits(bytes) + units <= CALL_BUDGET then return end
  fail(format('%s: %s would allocate or clear %.0f bytes, more than one call may (%d units, one per %d bytes: about 0.6 ms of the server a MiB); nothing was written',
    where, what, bytes, CALL_BUDGET, CLEAR_BYTES_PER_UNIT))
end

-- Zeroes bytes [at, at + n) of `key` from one 64 KiB string of zeros (building a string of n zeros in Lua costs 14 us

-- lua/bits.lua ------------------------------------------------------------------------------------------------

-- bits.lua: a key's bits and counters in one Redis string, for both doors. Every rule here takes Redis offsets
-- (numbers: Redis formats a number argument itself for less than a string built in Lua costs), so it does not care
-- whether the offsets were computed on the server (the functions) or sent packed by the Node client.

-- A call's offsets go to Redis in as few BITFIELD commands as fit Lua's stack (about 8,000 arguments, so 7,000 each).
-- Within one BITFIELD the subcommands apply in order, so a key repeated in a batch finds its bits set by the earlier
-- copy: the answers are those of adding the keys one by one.
local MAX_ARGS = 7000

-- The arguments of one BITFIELD, reused (no table per key).
local cmd = {}

-- BITFIELD `op type offset [value]` on every offset of `offsets` (a list), in commands of a few thousand arguments
-- (each led by OVERFLOW SAT when `saturate`); returns the replies in order.
local function bitfieldOffsets(key, readOnly, op, ctype, value, offsets, saturate)
  local per = value == nil and 3 or 4
  local out, o = {}, 0
  local at = 1
  while at <= #offsets do
    local last = min(#offsets, at + floor(MAX_ARGS / per) - 1)
    local n = 0
    if saturate then cmd[1], cmd[2] = 'OVERFLOW', 'SAT'; n = 2 end
    for j = at, last do
      cmd[n + 1], cmd[n + 2], cmd[n + 3] = op, ctype, offsets[j]
      n = n + 3
      if value ~= nil then cmd[n + 1] = value; n = n + 1 end
    end
    local reply
    if readOnly then reply = call('BITFIELD_RO', key, spread(cmd, 1, n))
    else reply = call('BITFIELD', key, spread(cmd, 1, n)) end
    for r = 1, #reply do out[o + r] = reply[r] end
    o = o + #reply
    at = last + 1
  end
  return out
end

-- Whether one of item i's values (0-based i; k values per item, in order) equals v.
local function anyOf(values, i, k, v)
  for h = i * k + 1, i * k + k do
    if values[h] == v then return true end
  end
  return false
end

-- The answers of a test-and-add of `n` items from the values its BITFIELD returned, k per item: 1 when one of the
-- item's values is `newWhen` (an old bit 0, or a counter now 1: the add changed the filter, counted), 2 when only
-- the exception set `set` (or nil) listed the item and does not any more (ExceptionFilter.add: true, not counted),
-- else 0. `itemAt(i)` is item i's bytes (1-based). Returns the answers and how many were counted.
local function addAnswers(values, k, newWhen, set, n, itemAt)
  local out, added = {}, 0
  for i = 0, n - 1 do
    if anyOf(values, i, k, newWhen) then out[i + 1] = 1; added = added + 1 else out[i + 1] = 0 end
    if set ~= nil and call('SREM', set, itemAt(i + 1)) == 1 and out[i + 1] == 0 then out[i + 1] = 2 end
  end
  return out, added
end

-- Membership of `n` items from their k values each: 1 when none is 0 and the exception set `set` (or nil) does not
-- list the item.
local function presentAnswers(values, k, set, n, itemAt)
  local out = {}
  for i = 0, n - 1 do
    if anyOf(values, i, k, 0) then out[i + 1] = 0 else out[i + 1] = 1 end
    if set ~= nil and out[i + 1] == 1 and call('SISMEMBER', set, itemAt(i + 1)) == 1 then out[i + 1] = 0 end
  end
  return out
end

-- Zeroes bytes [at, at + n) of `key` from one 64 KiB string of zeros (building a string of n zeros in Lua costs 14 us
-- a KiB; this, 0.1).
local ZERO_CHUNK = 65536
local zeroChunk
local function clearRange(key, at, n)
  zeroChunk = zeroChunk or string.rep('\0', ZERO_CHUNK)
  local done = 0
  while done < n do
    local step = min(ZERO_CHUNK, n - done)
    call('SETRANGE', key, at + done, step == ZERO_CHUNK and zeroChunk or sub(zeroChunk, 1, step))
    done = done + step
  end
end

-- lua/ring.lua ------------------------------------------------------------------------------------------------

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

-- lua/chain.lua -----------------------------------------------------------------------------------------------

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

-- lua/counters.lua --------------------------------------------------------------------------------------------

-- counters.lua: the checked delete of a counting filter (CountingBloomFilter.delete of @bloomkit/counting), for both
-- doors. A key is removed only when each of its k counters is non-zero and, unless saturated, at least the number of
-- times its position repeats among the key's k; then each unsaturated counter goes down once per occurrence (a
-- saturated one stays: it no longer knows its count). `count` drops by one for each key one of whose counters
-- reached zero.

-- Deletes the key whose k counters are at the BITFIELD `offsets` (type `ctype`, largest value `most`) of string
-- `data`: returns 1 and whether some counter reached zero, or 0 (absent: nothing changed).
local function deleteChecked(data, ctype, most, offsets, k)
  local get = {}
  for h = 1, k do get[3 * h - 2], get[3 * h - 1], get[3 * h] = 'GET', ctype, offsets[h] end
  local values = call('BITFIELD_RO', data, spread(get, 1, 3 * k))
  for h = 1, k do
    local times = 0
    for g = 1, k do if offsets[g] == offsets[h] then times = times + 1 end end
    if values[h] == 0 or (values[h] ~= most and values[h] < times) then return 0, false end
  end
  local dec, n = { 'OVERFLOW', 'WRAP' }, 2
  for h = 1, k do
    if values[h] ~= most then
      dec[n + 1], dec[n + 2], dec[n + 3], dec[n + 4] = 'INCRBY', ctype, offsets[h], -1
      n = n + 4
    end
  end
  local reached = false
  if n > 2 then
    local now = call('BITFIELD', data, spread(dec, 1, n))
    for h = 1, #now do if now[h] == 0 then reached = true end end
  end
  return 1, reached
end

-- Deletes items 1..n of the filter whose meta hash is `meta` (counters of `width` bits in `data`), `offsetsOf(i, out)` giving item i's k
-- counter offsets: 1 deleted, 0 absent, in order. `count` is the meta hash's, checked before the call writes.
local function deleteAll(meta, data, width, k, n, offsetsOf, count)
  local ctype, most = 'u' .. width, 2 ^ width - 1
  local out, emptied, offsets = {}, 0, {}
  for i = 1, n do
    local answer, reached = deleteChecked(data, ctype, most, offsetsOf(i, offsets), k)
    out[i] = answer
    if reached then emptied = emptied + 1 end
  end
  if emptied > 0 then call('HSET', meta, 'count', format('%.0f', max(0, count - emptied))) end
  return out
end

-- lua/exceptions.lua ------------------------------------------------------------------------------------------

-- exceptions.lua: a filter's list of known false positives (ExceptionFilter of @bloomkit/exceptions), a Redis set
-- beside the bits, for both doors. A listed key answers absent; adding it again takes it off the list (bits.lua's
-- addAnswers and presentAnswers consult the set during adds and lookups).

-- Lists items 1..n as exceptions where `holds(i)` (all their bits are set): 1 for an item listed now, 0 when the
-- filter answers absent already or the item was listed. A set created here takes the bits' TTL (`data`'s).
local function recordExceptions(set, data, n, itemAt, holds)
  local fresh = call('EXISTS', set) == 0
  local out = {}
  for i = 1, n do
    if holds(i) and call('SADD', set, itemAt(i)) == 1 then out[i] = 1 else out[i] = 0 end
  end
  if fresh and call('EXISTS', set) == 1 then
    local ttl = call('PTTL', data)
    if ttl > 0 then call('PEXPIRE', set, ttl) end
  end
  return out
end

-- Takes items 1..n off the list: 1 for an item that was on it.
local function removeExceptions(set, n, itemAt)
  local out = {}
  for i = 1, n do out[i] = call('SREM', set, itemAt(i)) end
  return out
end

-- lua/create.lua ----------------------------------------------------------------------------------------------

-- create.lua: the rules of a filter's meta hash that both doors share: create it unless one exists, and drop it
-- only while it is still the filter a handle knows.

-- Writes the meta hash `key` from `fields` (field, value, ...) unless one exists: nil when it was written, else
-- the existing hash's fields and values (HGETALL) for the caller to compare.
local function createMeta(key, fields)
  if call('EXISTS', key) == 1 then return call('HGETALL', key) end
  call('HSET', key, spread(fields))
  return nil
end

-- Deletes the meta hash `key` if it still holds `generation` (a drop through an old handle must not delete a
-- newer filter of the same name).
local function dropMeta(key, generation)
  if call('HGET', key, 'generation') == generation then call('DEL', key) end
end

-- lua/filters.lua ---------------------------------------------------------------------------------------------

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

-- lua/reserve.lua ---------------------------------------------------------------------------------------------

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

-- lua/shards.lua ----------------------------------------------------------------------------------------------

local SHARD_TRAILER = 32 -- the guard (4 bytes), then the shape (28)

local function u32(bytes, at)
  local b1, b2, b3, b4 = byte(bytes, at, at + 3)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4
end

-- The shard named by the key argument NAME/i of the filter's generation G (a decimal argument): its key, shape and
-- exception set, checked against its trailer.
local function openShard(where, keyArg, generationText)
  local name, index = match(type(keyArg) == 'string' and keyArg or '', '^(.+)/(%d+)$')
  if name == nil or #index > 7 then
    fail(format("%s: the key argument must be NAME/SHARD, the filter's name and a shard's index, got %s", where, show(keyArg)))
  end
  checkName(name)
  local i = tonumber(index)
  local generation = argInteger(where, 'GENERATION', generationText, 1, TWO32 - 1)
  local g = hexOf(generation)
  local key = 'bloomkit:{' .. keyArg .. '}:shard:' .. g
  local length = call('STRLEN', key)
  local gone = format('no filter %s of generation %.0f with a shard %d (bk_info %s gives the generation and shards)', name, generation, i, name)
  if length < SHARD_TRAILER then fail(gone) end
  local t = call('GETRANGE', key, length - SHARD_TRAILER, length - 1)
  if u32(t, 1) ~= generation then fail(gone) end
  local function bad(what) fail(format('%s: the shape after the guard of %s is not bloomkit\'s (%s)', where, key, what)) end
  if sub(t, 5, 8) ~= 'BKSH' or byte(t, 15) ~= 1 or byte(t, 16) ~= 0 then bad('marker or version') end
  local k = byte(t, 13)
  if k < 1 or k > MAX_HASHES then bad('hashes') end
  local exceptions = byte(t, 14)
  if exceptions > 1 then bad('exceptions') end
  local m = u32(t, 17) * TWO32 + u32(t, 21)
  if m < BLOCK_BITS or m > MAX_BLOCKED_BITS or m % BLOCK_BITS ~= 0 then bad('bits') end
  local blocks = m / BLOCK_BITS
  local per = u32(t, 25)
  if per < 1 or per > blocks or per > TWO32 / BLOCK_BITS then bad('blocks per shard') end
  if u32(t, 29) ~= i or i >= ceil(blocks / per) then bad('shard index') end
  if (min(per, blocks - i * per) * 64) ~= length - SHARD_TRAILER then bad('length') end
  return {
    name = name, index = i, key = key, generation = generation, k = k, blocks = blocks, per = per,
    exceptions = exceptions == 1, set = 'bloomkit:{' .. keyArg .. '}:exceptions:' .. g,
    shape = { seed = u32(t, 9), k = k, sigma = BLOCK_BITS / TWO32, stride = 0 },
  }
end

-- The Redis bit offsets of every item args[from..] in the shard, k per item, after checking that each item belongs
-- to it (nothing is written when one does not).
local function shardOffsets(where, shard, args, from)
  local offsets = {}
  local sigma = shard.blocks / TWO32
  local first = shard.index * shard.per
  local k = shard.k
  for j = from, #args do
    local h1, h2, h3, h4 = murmur(args[j], shard.shape.seed)
    local b = floor(fmix(bxor(bxor(h1, h2), bxor(h3, h4)) % TWO32) * sigma)
    local home = floor(b / shard.per)
    if home ~= shard.index then
      fail(format('%s: item %d (%s) belongs to shard %.0f of %s, not %d: route each item by the shard rule', where, j - from + 1, show(args[j]), home, shard.name, shard.index))
    end
    positionsOfHash(shard.shape, h1, h2, h3, h4, pos)
    local base = (b - first) * BLOCK_BITS
    local at = (j - from) * k
    for h = 1, k do offsets[at + h] = bitOffset(base + pos[h]) end
  end
  return offsets
end


-- bk_shard_madd NAME/i GENERATION ITEM [ITEM ...] -> as bk_madd, for items that all belong to shard i of the blocked
-- filter NAME. The filter's count is not changed here (its meta lives in another slot): add the number of 1s with
-- bk_shard_count.
local function bk_shard_madd(keys, args)
  local where = 'bk_shard_madd'
  items(where, args, 2)
  local shard = openShard(where, keys[1], args[1])
  charge(where, args, 2, shard.k + (shard.exceptions and CALL_UNITS or 0), 0, format('%d positions', shard.k))
  local before = bitfieldOffsets(shard.key, false, 'SET', 'u1', 1, shardOffsets(where, shard, args, 2), false)
  local set = shard.exceptions and shard.set or nil
  return asAdded((addAnswers(before, shard.k, 0, set, #args - 1, function(i) return args[i + 1] end)))
end

-- bk_shard_mexists NAME/i GENERATION ITEM [ITEM ...] -> as bk_mexists, for items of shard i
local function bk_shard_mexists(keys, args)
  local where = 'bk_shard_mexists'
  items(where, args, 2)
  local shard = openShard(where, keys[1], args[1])
  charge(where, args, 2, shard.k + (shard.exceptions and CALL_UNITS or 0), 0, format('%d positions', shard.k))
  local values = bitfieldOffsets(shard.key, true, 'GET', 'u1', nil, shardOffsets(where, shard, args, 2), false)
  local set = shard.exceptions and shard.set or nil
  return presentAnswers(values, shard.k, set, #args - 1, function(i) return args[i + 1] end)
end

-- lua/verbs.lua -----------------------------------------------------------------------------------------------

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
