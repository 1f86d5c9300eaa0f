-- Adds one copy of each key (CuckooFilter.addAll), whole or nothing: '1' per key absent before, '0' present, and
-- `count` grows by the keys; a key with no room, or walks past the call's kicks, is BLOOMKIT_FULL and nothing is
-- written (cuckoo-prologue.lua says the arguments; ARGV[8] the filter's name, for the refusal; ARGV[9] '1' to add
-- only the keys that are absent, as CF.ADDNX: cuckoo.addAll).
return runOnce(function()
  local v, packed, n = openTable()
  local out, refusal = cuckoo.addAll(v, KEYS[1], countOf(KEYS[1]), ARGV[8], n, packedHashes(packed), ARGV[9] == '1')
  if out == nil then fail('BLOOMKIT_FULL ' .. refusal) end
  return table.concat(out)
end)
