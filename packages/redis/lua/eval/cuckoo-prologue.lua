-- The start of the cuckoo filter's scripts (cuckoo.lua). KEYS[1] the meta hash, KEYS[2] the table's string; ARGV[1]
-- the generation, ARGV[2..5] the table's f, b, n and kicks (the meta hash's `table`), ARGV[6] the kicks the call may
-- make, ARGV[7] the keys' hash words h1, h2, h3 (u32 little-endian, 3 per key). Nothing is read or written unless
-- the meta hash holds the generation and the string its guard after the table (guard.ts of @bloomkit/redis).
local function openTable()
  checkGeneration(KEYS[1], ARGV[1])
  local f, b, n = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  checkGuard(KEYS[2], ARGV[1], ceil(n * b * f / 8) * 8)
  return cuckoo.view(KEYS[2], f, b, n, tonumber(ARGV[5]), tonumber(ARGV[6])), ARGV[7], #ARGV[7] / 12
end

-- Key i's hash words h1, h2, h3, as the packed argument holds them.
local function packedHashes(packed)
  return function(i) return offset(packed, 3 * i - 3), offset(packed, 3 * i - 2), offset(packed, 3 * i - 1) end
end
