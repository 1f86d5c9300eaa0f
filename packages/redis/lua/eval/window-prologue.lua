-- The window scripts' common start (ring.lua; docs/FORMAT.md section 3.6): KEYS[1] the meta hash, KEYS[2] the ring;
-- ARGV[1] packed offsets (h = k + l per key: the key's bit in each slice j), ARGV[2] k, ARGV[3] h, ARGV[4] g,
-- ARGV[5] bytes per slice, ARGV[6] the period in ms (0: a count window), ARGV[7] the caller's time in ms or '' for the
-- server's, ARGV[8] the generation, ARGV[9] the caller's clock tolerance in ms or 'inf' (window-clock.ts). Refuses
-- unless the meta hash holds the generation and the ring is there at its size; reads and checks the state; reads
-- the clock.
local function windowBatch()
  local r = {
    hash = KEYS[1], data = KEYS[2], k = tonumber(ARGV[2]), h = tonumber(ARGV[3]), g = tonumber(ARGV[4]),
    sliceBytes = tonumber(ARGV[5]), period = tonumber(ARGV[6]),
  }
  checkGeneration(r.hash, ARGV[8])
  if call('STRLEN', r.data) ~= r.h * r.sliceBytes then gone(r.name, 'its ring is gone') end
  local ring = readRing(r)
  ringAt(r, ring, r.period > 0 and readNow(ARGV[7], ARGV[9]) or 0)
  local packed, h = ARGV[1], r.h
  local function offsetsOf(i, out)
    for j = 1, h do out[j] = offset(packed, (i - 1) * h + j - 1) end
    return out
  end
  return r, ring, offsetsOf, #packed / (4 * h)
end
