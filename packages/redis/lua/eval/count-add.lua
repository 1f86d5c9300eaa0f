-- Adds ARGV[2] to the meta hash KEYS[1]'s `count` only while it holds the generation ARGV[1]: never recreates a gone
-- hash, and refuses (BLOOMKIT_GONE) when the meta hash is gone or is another filter's, so an add into storage whose
-- meta was evicted or dropped is an error, never an acknowledgement. A count that is not decimal digits is refused.
return runOnce(function()
  checkGeneration(KEYS[1], ARGV[1])
  countOf(KEYS[1])
  call('HINCRBY', KEYS[1], 'count', ARGV[2])
  return 0
end)
