-- Records exceptions, as ExceptionFilter.addException: a key goes into the set only when all its k bits are set
-- ('1'); '0' when the filter answers absent or the key is listed already. A set created here takes the bits' TTL.
return runOnce(function()
  local b = exceptionsBatch()
  local values = bitfieldOffsets(b.bits, true, 'GET', 'u1', nil, b.offsets, false)
  local function holds(i) return not anyOf(values, i - 1, b.k, 0) end
  return table.concat(recordExceptions(b.set, b.bits, b.n, b.itemAt, holds))
end)
