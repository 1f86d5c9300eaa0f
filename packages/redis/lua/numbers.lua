-- numbers.lua: the numbers of the functions' arguments and of the meta hash's decimal fields (integers are base.lua's).

-- A decimal number (digits, point, exponent; no hex, inf or nan) in [low, high], or nil.
local function decimal(text, low, high)
  if type(text) ~= 'string' or #text > 40 or not match(text, '^%d*%.?%d*[eE]?[-+]?%d*$') then return nil end
  local value = tonumber(text)
  if value == nil or not (value >= low and value <= high) then return nil end
  return value
end

-- A decimal number strictly between 0 and 1, or nil.
local function rate(text)
  local value = decimal(text, 0, 1)
  if value == nil or value == 0 or value == 1 then return nil end
  return value
end

-- The shortest of %.15g, %.16g and %.17g that reads back as x: how the meta hash keeps a rate (as JavaScript
-- would print it in almost every case, and always read back exactly).
local function exact(x)
  for digits = 15, 17 do
    local text = format('%.' .. digits .. 'g', x)
    if tonumber(text) == x then return text end
  end
  return format('%.17g', x)
end

local function argInteger(where, name, text, min, max)
  local value = integer(text, min, max)
  if value == nil then fail(format('%s: %s must be an integer in [%.0f, %.0f], got %s', where, name, min, max, show(text))) end
  return value
end

-- A clock reading in ms since the epoch, as a client's clock gives it: digits with an optional fraction (no sign, no
-- exponent), read as the nearest double (as JavaScript's String(ms) round-trips), in [0, 2^47].
local function argTime(where, name, text)
  local value = #text <= 40 and (text:match('^%d+$') or text:match('^%d+%.%d+$')) and tonumber(text)
  if not value or value > MAX_CLOCK_MS then
    fail(format('%s: %s must be a time in ms since the epoch, digits with an optional fraction, in [0, %.0f], got %s',
      where, name, MAX_CLOCK_MS, show(text)))
  end
  return value
end
