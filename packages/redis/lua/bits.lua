-- bits.lua: a key's bits and counters in one Redis string, for both doors. Every rule here takes Redis offsets
-- (numbers: Redis formats a number argument itself for less than a string built in Lua costs), so it does not care
-- whether the offsets were computed on the server (the functions) or sent packed by the Node client.

-- A call's offsets go to Redis in as few BITFIELD commands as fit Lua's stack (about 8,000 arguments, so 7,000 each).
-- Within one BITFIELD the subcommands apply in order, so a key repeated in a batch finds its bits set by the earlier
-- copy: the answers are those of adding the keys one by one.
local MAX_ARGS = 7000

-- The arguments of one BITFIELD, reused (no table per key).
local cmd = {}

-- BITFIELD `op type offset [value]` on every offset of `offsets` (a list), in commands of a few thousand arguments
-- (each led by OVERFLOW SAT when `saturate`); returns the replies in order.
local function bitfieldOffsets(key, readOnly, op, ctype, value, offsets, saturate)
  local per = value == nil and 3 or 4
  local out, o = {}, 0
  local at = 1
  while at <= #offsets do
    local last = min(#offsets, at + floor(MAX_ARGS / per) - 1)
    local n = 0
    if saturate then cmd[1], cmd[2] = 'OVERFLOW', 'SAT'; n = 2 end
    for j = at, last do
      cmd[n + 1], cmd[n + 2], cmd[n + 3] = op, ctype, offsets[j]
      n = n + 3
      if value ~= nil then cmd[n + 1] = value; n = n + 1 end
    end
    local reply
    if readOnly then reply = call('BITFIELD_RO', key, spread(cmd, 1, n))
    else reply = call('BITFIELD', key, spread(cmd, 1, n)) end
    for r = 1, #reply do out[o + r] = reply[r] end
    o = o + #reply
    at = last + 1
  end
  return out
end

-- Whether one of item i's values (0-based i; k values per item, in order) equals v.
local function anyOf(values, i, k, v)
  for h = i * k + 1, i * k + k do
    if values[h] == v then return true end
  end
  return false
end

-- The answers of a test-and-add of `n` items from the values its BITFIELD returned, k per item: 1 when one of the
-- item's values is `newWhen` (an old bit 0, or a counter now 1: the add changed the filter, counted), 2 when only
-- the exception set `set` (or nil) listed the item and does not any more (ExceptionFilter.add: true, not counted),
-- else 0. `itemAt(i)` is item i's bytes (1-based). Returns the answers and how many were counted.
local function addAnswers(values, k, newWhen, set, n, itemAt)
  local out, added = {}, 0
  for i = 0, n - 1 do
    if anyOf(values, i, k, newWhen) then out[i + 1] = 1; added = added + 1 else out[i + 1] = 0 end
    if set ~= nil and call('SREM', set, itemAt(i + 1)) == 1 and out[i + 1] == 0 then out[i + 1] = 2 end
  end
  return out, added
end

-- Membership of `n` items from their k values each: 1 when none is 0 and the exception set `set` (or nil) does not
-- list the item.
local function presentAnswers(values, k, set, n, itemAt)
  local out = {}
  for i = 0, n - 1 do
    if anyOf(values, i, k, 0) then out[i + 1] = 0 else out[i + 1] = 1 end
    if set ~= nil and out[i + 1] == 1 and call('SISMEMBER', set, itemAt(i + 1)) == 1 then out[i + 1] = 0 end
  end
  return out
end

-- Zeroes bytes [at, at + n) of `key` from one 64 KiB string of zeros (building a string of n zeros in Lua costs 14 us
-- a KiB; this, 0.1).
local ZERO_CHUNK = 65536
local zeroChunk
local function clearRange(key, at, n)
  zeroChunk = zeroChunk or string.rep('\0', ZERO_CHUNK)
  local done = 0
  while done < n do
    local step = min(ZERO_CHUNK, n - done)
    call('SETRANGE', key, at + done, step == ZERO_CHUNK and zeroChunk or sub(zeroChunk, 1, step))
    done = done + step
  end
end
