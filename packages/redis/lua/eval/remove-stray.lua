-- Deletes the string KEYS[1] unless its guard (bit offset ARGV[1]) holds the generation ARGV[2]: what an add's
-- BITFIELD may have created in storage that was gone (guard.ts of @bloomkit/redis).
return run(function()
  if call('EXISTS', KEYS[1]) == 1 and call('BITFIELD_RO', KEYS[1], 'GET', 'u32', ARGV[1])[1] ~= tonumber(ARGV[2]) then
    call('DEL', KEYS[1])
  end
  return 0
end)
