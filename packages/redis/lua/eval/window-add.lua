-- Test-and-add of a batch in a window, atomically (ring.lua; KEYS and ARGV in window-prologue.lua): first the
-- generations whose time is up end; then each key is looked for, its bits set in the k newest slices, and a
-- generation that fills ends. Writes the state back and adds the new keys to `count`. '1' per new key.
return runOnce(function()
  local r, ring, offsetsOf, n = windowBatch()
  countOf(r.hash)
  ringAdvance(r, ring)
  local out, added = ringAdd(r, ring, n, offsetsOf)
  ringWrite(r, ring, added)
  return table.concat(out)
end)
