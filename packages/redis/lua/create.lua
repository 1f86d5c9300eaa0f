-- create.lua: the rules of a filter's meta hash that both doors share: create it unless one exists, and drop it
-- only while it is still the filter a handle knows.

-- Writes the meta hash `key` from `fields` (field, value, ...) unless one exists: nil when it was written, else
-- the existing hash's fields and values (HGETALL) for the caller to compare.
local function createMeta(key, fields)
  if call('EXISTS', key) == 1 then return call('HGETALL', key) end
  call('HSET', key, spread(fields))
  return nil
end

-- Deletes the meta hash `key` if it still holds `generation` (a drop through an old handle must not delete a
-- newer filter of the same name).
local function dropMeta(key, generation)
  if call('HGET', key, 'generation') == generation then call('DEL', key) end
end
