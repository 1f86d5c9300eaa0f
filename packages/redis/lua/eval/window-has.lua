-- Membership of a batch in a window, read-only (ring.lua; KEYS and ARGV in window-prologue.lua). '1' per key present.
return run(function()
  local r, ring, offsetsOf, n = windowBatch()
  return table.concat(ringHas(r, ring, n, offsetsOf, ringLast(r, ring)))
end)
