-- Adds one copy of each key (CuckooFilter.addAll), whole or nothing: '1' per key absent before, '0' present, and
-- `count` grows by the keys; a key with no room, or walks past the call's kicks, is BLOOMKIT_FULL and nothing is
-- written (cuckoo-prologue.lua says the arguments; ARGV[8] the filter's name, for the refusal).
return run(function()
  local v, packed, n = openTable()
  local count = countOf(KEYS[1])
  local out = {}
  for i, key in ipairs(keysOf(v, packed, n)) do
    out[i] = cuckoo.place(v, key[1], key[2], key[3], key[4])
    if out[i] == nil then fail('BLOOMKIT_FULL ' .. cuckoo.refusal(v, ARGV[8], count)) end
  end
  cuckoo.commit(v)
  call('HINCRBY', KEYS[1], 'count', n)
  return table.concat(out)
end)
