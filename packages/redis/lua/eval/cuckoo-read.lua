-- Reads each key, writing nothing: ARGV[8] 'has' answers '1' (its fingerprint in one of its buckets) or '0' per
-- key, as one string; 'count' the copies of its fingerprint in its two buckets, as an array (CuckooFilter.countOf)
-- (cuckoo-prologue.lua says the other arguments).
return run(function()
  local v, packed, n = openTable()
  local out = cuckoo.copiesAll(v, n, packedHashes(packed))
  if ARGV[8] == 'count' then return out end
  for i = 1, n do if out[i] > 0 then out[i] = 1 end end
  return table.concat(out)
end)
