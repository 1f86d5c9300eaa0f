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
