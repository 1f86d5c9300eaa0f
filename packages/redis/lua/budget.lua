-- The budget of one call ------------------------------------------------------------------------------------------
-- A function holds the server while it runs: no other client is answered until it returns, and FUNCTION KILL cannot
-- stop it once it has written. So every call is priced before it reads past the meta hash or writes anything, and
-- one whose price is over CALL_BUDGET is refused whole, the reply naming its price and how many such items fit.
--
-- A unit is about a microsecond of Redis 7.0's server time on the development machine (2 cores), measured with a
-- client PINGing every 5 ms during calls of 100 to 5,000 items (README of @bloomkit/redis, "What one call may do"):
-- each item costs ITEM_UNITS (its hash and its reply: 7 us measured), one unit per position read or written (a
-- BITFIELD subcommand: 1 us), one unit per KEY_BYTES_PER_UNIT bytes of items (MurmurHash3 in Lua: 55 ns a byte), and
-- a separate command per sub-filter, slice or set a call consults CALL_UNITS, and one unit per CLEAR_BYTES_PER_UNIT
-- bytes of storage allocated or cleared (SETRANGE of a new string: 0.6 to 0.8 ms a MiB). CALL_BUDGET is half of the
-- 100 ms any call may hold the server, for a machine busier than the one measured; so one call allocates or clears at
-- most 48 MiB (a filter of about 400 million bits).
local CALL_BUDGET = 50000
local ITEM_UNITS = 8
local CALL_UNITS = 2
local KEY_BYTES_PER_UNIT = 16
local CLEAR_BYTES_PER_UNIT = 1024

-- The units of reading items args[from..]: ITEM_UNITS each, plus their bytes.
local function itemUnits(args, from)
  local bytes = 0
  for i = from, #args do bytes = bytes + #args[i] end
  return (#args - from + 1) * ITEM_UNITS + ceil(bytes / KEY_BYTES_PER_UNIT), bytes
end

-- Refuses a call on items args[from..] whose price (their units, `perItem` units more for each, `fixed` units once)
-- is over the budget; nothing has been written when it does. `what` says what an item costs, for the reply.
local function charge(where, args, from, perItem, fixed, what)
  local units, bytes = itemUnits(args, from)
  local n = #args - from + 1
  local price = units + n * perItem + (fixed or 0)
  if price <= CALL_BUDGET then return end
  local each = ITEM_UNITS + perItem + ceil(bytes / n / KEY_BYTES_PER_UNIT)
  local fit = max(0, floor((CALL_BUDGET - (fixed or 0)) / each))
  fail(format('%s: this call would cost %.0f units, more than the %d one call may take (%d items of %.0f bytes on average, %s each); nothing was written: send at most %.0f such items per call (the budget is in the README of @bloomkit/redis)',
    where, price, CALL_BUDGET, n, bytes / n, what, fit))
end

-- The units of allocating or clearing `bytes` bytes of storage.
local function clearUnits(bytes)
  return ceil(bytes / CLEAR_BYTES_PER_UNIT)
end

-- Refuses a call that would allocate or clear `bytes` bytes (beside `units` more), over the budget.
local function chargeClear(where, bytes, units, what)
  if clearUnits(bytes) + units <= CALL_BUDGET then return end
  fail(format('%s: %s would allocate or clear %.0f bytes, more than one call may (%d units, one per %d bytes: about 0.6 ms of the server a MiB); nothing was written',
    where, what, bytes, CALL_BUDGET, CLEAR_BYTES_PER_UNIT))
end

-- Zeroes bytes [at, at + n) of `key` from one 64 KiB string of zeros (building a string of n zeros in Lua costs 14 us
