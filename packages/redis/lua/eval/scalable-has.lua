-- Scalable membership: '1' when some sub-filter holds the key (chain.lua). KEYS and ARGV as scalable-add.lua.
return run(function()
  local c, offsetsOf, n = scalableBatch()
  local C, newest = readChain(c, MAX_SUB_FILTERS)
  if newest == nil then return { 1, C, '' } end
  return { 0, C, table.concat(chainHas(c, C, n, offsetsOf)) }
end)
