-- counters.lua: the checked delete of a counting filter (CountingBloomFilter.delete of @bloomkit/counting), for both
-- doors. A key is removed only when each of its k counters is non-zero and, unless saturated, at least the number of
-- times its position repeats among the key's k; then each unsaturated counter goes down once per occurrence (a
-- saturated one stays: it no longer knows its count). `count` drops by one for each key one of whose counters
-- reached zero.

-- Deletes the key whose k counters are at the BITFIELD `offsets` (type `ctype`, largest value `most`) of string
-- `data`: returns 1 and whether some counter reached zero, or 0 (absent: nothing changed).
local function deleteChecked(data, ctype, most, offsets, k)
  local get = {}
  for h = 1, k do get[3 * h - 2], get[3 * h - 1], get[3 * h] = 'GET', ctype, offsets[h] end
  local values = call('BITFIELD_RO', data, spread(get, 1, 3 * k))
  for h = 1, k do
    local times = 0
    for g = 1, k do if offsets[g] == offsets[h] then times = times + 1 end end
    if values[h] == 0 or (values[h] ~= most and values[h] < times) then return 0, false end
  end
  local dec, n = { 'OVERFLOW', 'WRAP' }, 2
  for h = 1, k do
    if values[h] ~= most then
      dec[n + 1], dec[n + 2], dec[n + 3], dec[n + 4] = 'INCRBY', ctype, offsets[h], -1
      n = n + 4
    end
  end
  local reached = false
  if n > 2 then
    local now = call('BITFIELD', data, spread(dec, 1, n))
    for h = 1, #now do if now[h] == 0 then reached = true end end
  end
  return 1, reached
end

-- Deletes items 1..n of the filter whose meta hash is `meta` (counters of `width` bits in `data`), `offsetsOf(i, out)` giving item i's k
-- counter offsets: 1 deleted, 0 absent, in order. `count` is the meta hash's, checked before the call writes.
local function deleteAll(meta, data, width, k, n, offsetsOf, count)
  local ctype, most = 'u' .. width, 2 ^ width - 1
  local out, emptied, offsets = {}, 0, {}
  for i = 1, n do
    local answer, reached = deleteChecked(data, ctype, most, offsetsOf(i, offsets), k)
    out[i] = answer
    if reached then emptied = emptied + 1 end
  end
  if emptied > 0 then call('HSET', meta, 'count', format('%.0f', max(0, count - emptied))) end
  return out
end
