-- A new window's state, as WindowBloomFilter.create leaves it (ring.lua): KEYS[1] the meta hash; ARGV[1] h = k + l,
-- ARGV[2] the period (0: a count window), ARGV[3] and ARGV[4] the clock as in window-prologue.lua.
return runOnce(function()
  local r = { hash = KEYS[1], h = tonumber(ARGV[1]), period = tonumber(ARGV[2]) }
  ringFresh(r, r.period > 0 and readNow(ARGV[3], ARGV[4]) or 0)
  return 1
end)
