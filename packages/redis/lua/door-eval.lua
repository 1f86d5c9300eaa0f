-- door-eval.lua: the door of the scripts the Node client sends with EVALSHA (@bloomkit/redis, src/lua/*.ts). Each
-- script is an entry of eval/ run by `run`, and names its keys as KEYS gives them (a client's keyPrefix included); a refusal becomes an error reply whose first word the client reads:
-- BLOOMKIT_GONE (the filter's storage is gone: FilterNotFoundError), BLOOMKIT_BADMETA field (a FormatError naming
-- the field), BLOOMKIT_CLOCK skew (ClockSkewError). The client computes the keys' positions: a batch's offsets come
-- as one binary argument (little-endian u32 Redis offsets), its keys as another (u32 length and bytes each), since
-- thousands of small arguments would cost the client more CPU than Redis spends on the work.

gone = function(_, detail)
  fail('BLOOMKIT_GONE the filter no longer exists' .. (detail and ' (' .. detail .. ')' or ''))
end

badMeta = function(_, field)
  fail('BLOOMKIT_BADMETA ' .. field)
end

-- Runs an entry's body: its result, or the error reply of a refusal (other errors pass on as they are).
local function run(body)
  takeLibraries()
  local ok, result = pcall(body)
  if ok then return result end
  if type(result) == 'string' and sub(result, 1, #FAIL_MARK) == FAIL_MARK then
    return redis.error_reply(sub(result, #FAIL_MARK + 1))
  end
  error(result, 0)
end

-- Runs a write entry's body once under replay (ledger.lua): the last of KEYS is its slot's ledger and the last of
-- ARGV the call's id, both taken off before the body reads KEYS and ARGV; a call whose id the ledger holds returns
-- the reply it got and changes nothing. The ledger expires no later than KEYS[1], a key of the filter.
local function runOnce(body)
  takeLibraries()
  local id = table.remove(ARGV)
  local key = table.remove(KEYS)
  return run(function()
    return ledger.once(key, ledger.checkId('BLOOMKIT_ID', id), body, KEYS[1])
  end)
end

-- Offset i (0-based) of a packed argument.
local function offset(packed, i)
  local b1, b2, b3, b4 = byte(packed, 4 * i + 1, 4 * i + 4)
  return b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
end

-- The offsets of a packed argument as a list.
local function unpackOffsets(packed)
  local out = {}
  for i = 0, #packed / 4 - 1 do out[i + 1] = offset(packed, i) end
  return out
end

-- The keys of a packed keys argument (u32 LE length, then the bytes, each) as a list.
local function unpackKeys(packed)
  local out, pos = {}, 1
  while pos <= #packed do
    local b1, b2, b3, b4 = byte(packed, pos, pos + 3)
    local n = b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
    out[#out + 1] = sub(packed, pos + 4, pos + 3 + n)
    pos = pos + 4 + n
  end
  return out
end

-- Refuses unless the string `key` holds the guard `generation` at bit offset `at` (guard.ts of @bloomkit/redis).
-- Reading a missing string creates nothing.
local function checkGuard(key, generation, at)
  if call('BITFIELD_RO', key, 'GET', 'u32', at)[1] ~= tonumber(generation) then gone() end
end

-- Refuses unless the meta hash `key` holds `generation` (compared as text: written without leading zeros).
local function checkGeneration(key, generation)
  if call('HGET', key, 'generation') ~= generation then gone() end
end

-- The time of a window script in ms: the server's TIME when `given` is '', else `given` while it is within
-- `tolerance` ms of it ('inf' trusts it); further off, a BLOOMKIT_CLOCK refusal with the skew.
local function readNow(given, tolerance)
  local t = call('TIME')
  local server = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
  if given == '' then return server end
  local own = tonumber(given)
  if own == nil or own ~= own then fail('BLOOMKIT_CLOCK NaN') end
  if tolerance ~= 'inf' and math.abs(own - server) > tonumber(tolerance) then fail(format('BLOOMKIT_CLOCK %.17g', own - server)) end
  return own
end
