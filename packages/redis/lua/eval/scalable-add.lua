-- Scalable test-and-add, growth included, as ScalableBloomFilter.add (chain.lua; KEYS and ARGV in
-- scalable-prologue.lua). Returns {status, C, answers}: status 0 when every key was answered; 1 when the chain grew
-- past the sub-filters sent (the client computes the next sub-filter's positions and sends the keys not yet
-- answered).
return runOnce(function()
  local c, offsetsOf, n = scalableBatch()
  local C, newest = readChain(c, MAX_SUB_FILTERS)
  if newest == nil then return { 1, C, '' } end
  countOf(c.hash)
  local out, stopped
  out, C, stopped = chainAdd(c, C, newest, n, offsetsOf, function() return nil end)
  return { stopped and 1 or 0, C, table.concat(out) }
end)
