-- Removes one copy of each key (CuckooFilter.deleteAll), in order: '1' removed, '0' absent (nothing changed for
-- it); `count` goes down by the removed (cuckoo-prologue.lua says the arguments).
return run(function()
  local v, packed, n = openTable()
  local count = countOf(KEYS[1])
  local out, removed = {}, 0
  for i, key in ipairs(keysOf(v, packed, n)) do
    out[i] = cuckoo.remove(v, key[1], key[2], key[3])
    removed = removed + out[i]
  end
  cuckoo.commit(v)
  if removed > 0 then call('HSET', KEYS[1], 'count', format('%.0f', max(0, count - removed))) end
  return table.concat(out)
end)
