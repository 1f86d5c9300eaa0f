-- A test-and-add of one string's batch with its count, in one atomic step (bits and counters of one string:
-- standard, partitioned, counting). KEYS[1] the meta hash, KEYS[2] the string; ARGV[1] the generation, ARGV[2] the
-- string's length (payload and guard), ARGV[3] k, ARGV[4] the value that makes a key new (0: an old bit; 1: a counter
-- just raised from 0), ARGV[5] '1' to saturate counters (OVERFLOW SAT), ARGV[6..] the BITFIELD subcommands, k per
-- key. Nothing is written unless the meta hash holds the generation and the string is there at its length, so an
-- add never goes into storage whose meta is gone, nor recreates storage that is gone. The subcommands run in
-- BITFIELDs of at most 6,000 arguments, all in this one script; `count` grows by the new keys before it returns.
-- Returns one character per key: '1' new, '0' present.
return runOnce(function()
  checkGeneration(KEYS[1], ARGV[1])
  if call('STRLEN', KEYS[2]) ~= tonumber(ARGV[2]) then gone() end
  countOf(KEYS[1])
  local k, newWhen = tonumber(ARGV[3]), tonumber(ARGV[4])
  local values, n = {}, 0
  local step = max(4 * k, 6000 - 6000 % (4 * k))
  for at = 6, #ARGV, step do
    local last = min(#ARGV, at + step - 1)
    local reply
    if ARGV[5] == '1' then reply = call('BITFIELD', KEYS[2], 'OVERFLOW', 'SAT', spread(ARGV, at, last))
    else reply = call('BITFIELD', KEYS[2], spread(ARGV, at, last)) end
    for i = 1, #reply do values[n + i] = reply[i] end
    n = n + #reply
  end
  local out, added = addAnswers(values, k, newWhen, nil, n / k)
  if added > 0 then call('HINCRBY', KEYS[1], 'count', added) end
  return table.concat(out)
end)
