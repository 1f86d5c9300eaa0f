-- Membership with exceptions, the set's half: the client sends only the keys whose k bits it read all set (in
-- BITFIELD_RO commands of their own, bit-store.ts) and no offsets; '1' for a key the set does not list, '0' for a
-- listed one, after the guard (a filter cleared or dropped since the bits were read answers BLOOMKIT_GONE). Bits are
-- only set while the guard holds, so each answer is the one a single read of bits and set at this call would give.
-- One SMISMEMBER (Redis 6.2+) for the call's keys: a client sends at most 256 keys a call (well within Lua's stack).
return run(function()
  local b = exceptionsBatch()
  if b.n == 0 then return '' end
  local listed = call('SMISMEMBER', b.set, spread(b.items))
  local out = {}
  for i = 1, b.n do out[i] = listed[i] == 1 and '0' or '1' end
  return table.concat(out)
end)
