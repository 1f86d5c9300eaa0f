-- The exception scripts' common start (a filter with exceptions, ExceptionFilter of @bloomkit/exceptions): KEYS[1]
-- the bits (guard checked), KEYS[2] the set of exception keys beside them (one slot); ARGV[1] and ARGV[2] the guard
-- (generation, offset), ARGV[3] k, ARGV[4] the packed offsets, ARGV[5] the packed keys, in the same order.
local function exceptionsBatch()
  checkGuard(KEYS[1], ARGV[1], ARGV[2])
  local batch = { bits = KEYS[1], set = KEYS[2], k = tonumber(ARGV[3]), offsets = unpackOffsets(ARGV[4]) }
  local items = unpackKeys(ARGV[5])
  batch.n = #items
  batch.items = items
  batch.itemAt = function(i) return items[i] end
  return batch
end
