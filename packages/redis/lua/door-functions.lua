-- door-functions.lua: the door of the function library (FCALL bk_*): a refusal becomes the error reply
-- "ERR bloomkit: message", naming the filter and what is wrong, for a reader of any client.

gone = function(name, detail)
  fail('no filter ' .. name .. (detail and ' (' .. detail .. ')' or ''))
end

badMeta = function(name, field, range, value)
  fail(format('meta field %s of %s must be %s, got %s', field, metaKey(name), range, show(value)))
end

-- Wraps a verb so that a fail() anywhere in it becomes the error reply (and nothing after it runs).
local function verb(body)
  return function(keys, args)
    if call == nil then takeLibraries() end
    local ok, result = pcall(body, keys, args)
    if ok then return result end
    if type(result) == 'string' and sub(result, 1, #FAIL_MARK) == FAIL_MARK then
      return redis.error_reply('ERR bloomkit: ' .. sub(result, #FAIL_MARK + 1))
    end
    -- A failed redis.call (no memory, no permission, a key of another type) comes as its reply's text, which starts
    -- with the error's code (ERR, OOM, NOPERM, WRONGTYPE...): replied as it is.
    if type(result) == 'string' and match(result, '^%u+ ') then return redis.error_reply(result) end
    error(result, 0)
  end
end
