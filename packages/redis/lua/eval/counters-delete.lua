-- Delete for counters, as CountingBloomFilter.delete (counters.lua). KEYS[1] the counters, KEYS[2] the meta hash;
-- ARGV[1] and ARGV[2] the guard (generation, offset), ARGV[3] k, ARGV[4] the counters' type (u4, u8), ARGV[5] their
-- largest value, ARGV[6] the packed offsets, k per key. '1' deleted, '0' absent (nothing changed), per key.
return runOnce(function()
  checkGuard(KEYS[1], ARGV[1], ARGV[2])
  local k, width = tonumber(ARGV[3]), tonumber(sub(ARGV[4], 2))
  local packed = ARGV[6]
  local function offsetsOf(i, out)
    for h = 1, k do out[h] = offset(packed, (i - 1) * k + h - 1) end
    return out
  end
  return table.concat(deleteAll(KEYS[2], KEYS[1], width, k, #packed / (4 * k), offsetsOf, countOf(KEYS[2])))
end)
