-- Membership with exceptions: '1' when all k bits are set and the key is not in the set (exceptions-prologue.lua).
return run(function()
  local b = exceptionsBatch()
  local values = bitfieldOffsets(b.bits, true, 'GET', 'u1', nil, b.offsets, false)
  return table.concat(presentAnswers(values, b.k, b.set, b.n, b.itemAt))
end)
