-- exceptions.lua: a filter's list of known false positives (ExceptionFilter of @bloomkit/exceptions), a Redis set
-- beside the bits, for both doors. A listed key answers absent; adding it again takes it off the list (bits.lua's
-- addAnswers and presentAnswers consult the set during adds and lookups).

-- Lists items 1..n as exceptions where `holds(i)` (all their bits are set): 1 for an item listed now, 0 when the
-- filter answers absent already or the item was listed. A set created here takes the bits' TTL (`data`'s).
local function recordExceptions(set, data, n, itemAt, holds)
  local fresh = call('EXISTS', set) == 0
  local out = {}
  for i = 1, n do
    if holds(i) and call('SADD', set, itemAt(i)) == 1 then out[i] = 1 else out[i] = 0 end
  end
  if fresh and call('EXISTS', set) == 1 then
    local ttl = call('PTTL', data)
    if ttl > 0 then call('PEXPIRE', set, ttl) end
  end
  return out
end

-- Takes items 1..n off the list: 1 for an item that was on it.
local function removeExceptions(set, n, itemAt)
  local out = {}
  for i = 1, n do out[i] = call('SREM', set, itemAt(i)) end
  return out
end
