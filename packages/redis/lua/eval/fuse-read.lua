-- Reads each key of a binary fuse filter (fuse.lua), writing nothing: '1' (present) or '0' per key, as one string.
-- KEYS[1] the meta hash, KEYS[2] the fingerprints' string; ARGV[1] the generation, ARGV[2] the fingerprint bits,
-- ARGV[3] the keys the set was built from (its `capacity`), ARGV[4] the mixing seed in 16 hex digits (the meta
-- hash's `fuse`), ARGV[5] the keys' 64-bit hashes (h1, h2 as u32 little-endian, 2 per key). Nothing is read unless
-- the meta hash holds the generation and the string its guard after the array (guard.ts of @bloomkit/redis).
return run(function()
  checkGeneration(KEYS[1], ARGV[1])
  local s = fuse.shape(tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4])
  checkGuard(KEYS[2], ARGV[1], s.bits)
  local packed, data = ARGV[5], KEYS[2]
  local function hashOf(i) return offset(packed, 2 * i - 2), offset(packed, 2 * i - 1) end
  local function readAll(offsets, ftype) return bitfieldOffsets(data, true, 'GET', ftype, nil, offsets, false) end
  return table.concat(fuse.hasAll(s, #packed / 8, hashOf, readAll))
end)
