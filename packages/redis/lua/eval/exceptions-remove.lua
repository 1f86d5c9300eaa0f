-- Removes exceptions: '1' for a key that was in the set. KEYS and ARGV as the others (offsets unused).
return runOnce(function()
  local b = exceptionsBatch()
  return table.concat(removeExceptions(b.set, b.n, b.itemAt))
end)
