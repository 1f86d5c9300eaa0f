-- Creates a filter's meta hash unless one exists, atomically (create.lua). KEYS[1] the meta hash; ARGV the
-- field/value pairs. Returns nil when it created it, else the existing hash (HGETALL) for the caller to compare.
return runOnce(function()
  return createMeta(KEYS[1], ARGV) or false
end)
