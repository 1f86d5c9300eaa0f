-- The scalable scripts' common start (chain.lua): KEYS[1] the meta hash, KEYS[2 + j] sub-filter j for j = 0..F, the
-- sub-filters the client computed positions for (the ones it knows and the next); ARGV[1] the packed offsets, for
-- each key those of sub-filters 0..F in order; ARGV[2 + 3j .. 4 + 3j] k, capacity and bytes of sub-filter j; the last
-- ARGV the generation. Refuses unless the meta hash holds the generation; reads and checks the chain.
local function scalableBatch()
  checkGeneration(KEYS[1], ARGV[#ARGV])
  local c = { hash = KEYS[1], subs = {} }
  local starts, per = {}, 0
  for j = 1, #KEYS - 1 do
    local k = tonumber(ARGV[3 * j - 1])
    c.subs[j] = { k = k, capacity = tonumber(ARGV[3 * j]), bytes = tonumber(ARGV[3 * j + 1]), key = KEYS[j + 1] }
    starts[j] = per
    per = per + k
  end
  local packed = ARGV[1]
  local function offsetsOf(i, j, out)
    local base = (i - 1) * per + starts[j]
    for h = 1, c.subs[j].k do out[h] = offset(packed, base + h - 1) end
    return out
  end
  return c, offsetsOf, #packed / (4 * per)
end
