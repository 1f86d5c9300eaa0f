-- Removes one copy of each key (CuckooFilter.deleteAll), in order: '1' removed, '0' absent (nothing changed for
-- it); `count` goes down by the removed (cuckoo-prologue.lua says the arguments).
return runOnce(function()
  local v, packed, n = openTable()
  return table.concat(cuckoo.removeAll(v, KEYS[1], countOf(KEYS[1]), n, packedHashes(packed)))
end)
