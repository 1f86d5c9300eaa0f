-- Test-and-add with exceptions, as ExceptionFilter.add: sets the key's k bits and takes it off the set, in one step.
-- '1' when a bit changed (counted), '2' when only an exception was lifted (true, not counted), '0' otherwise.
return runOnce(function()
  local b = exceptionsBatch()
  local values = bitfieldOffsets(b.bits, false, 'SET', 'u1', 1, b.offsets, false)
  return table.concat((addAnswers(values, b.k, 0, b.set, b.n, b.itemAt)))
end)
