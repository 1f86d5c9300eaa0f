-- Deletes a filter's meta hash if it still holds the generation ARGV[1] (create.lua). KEYS[1] the meta hash.
return run(function()
  dropMeta(KEYS[1], ARGV[1])
  return 0
end)
