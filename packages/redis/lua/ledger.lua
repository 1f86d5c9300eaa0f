-- ledger.lua: a write applied once under replay. A client resends a call whose reply it lost (ioredis does on a
-- dropped connection, by default; other clients when told to retry), and a cuckoo add or delete, a counter's raise
-- or a count sent twice would be applied twice. A write called with an id remembers its reply in the ledger of its
-- slot, the hash bloomkit:{TAG}:calls (TAG the filter's name, or NAME/i for shard i of a blocked filter), and a call
-- whose id the ledger holds returns that reply and changes nothing. A refusal is not remembered (it wrote nothing).
--
-- The ledger is bounded: it keeps the replies of the last ledger.CALLS ids of its slot (field r:j holds the id of
-- ring slot j, field c:ID its reply, packed with cmsgpack) and expires ledger.SECONDS after its last write, so a call
-- resent later than that, or after that many newer calls, is applied again. One id names one call: an id sent again
-- with other arguments gets the first call's reply.
-- One table, not locals: the function library is one chunk, and Lua allows it 200 locals.
local ledger = { CALLS = 1024, SECONDS = 600, MAX_ID_BYTES = 64 }

function ledger.key(tag) return 'bloomkit:{' .. tag .. '}:calls' end

-- Refuses an id that is empty or longer than MAX_ID_BYTES (a random token of 16 to 36 characters is what clients send).
function ledger.checkId(where, id)
  if type(id) ~= 'string' or #id == 0 or #id > ledger.MAX_ID_BYTES then
    fail(format('%s: ID must be a token of 1 to %d bytes, got %s', where, ledger.MAX_ID_BYTES, show(id)))
  end
  return id
end

-- The reply the ledger `key` holds for `id`, or nil.
function ledger.recall(key, id)
  local kept = call('HGET', key, 'c:' .. id)
  if not kept then return nil end
  return cmsgpack.unpack(kept)
end

-- Remembers `reply` for `id` in the ledger `key`, forgetting the id ledger.CALLS calls older, and renews its time:
-- ledger.SECONDS, or less when the filter's key `owner` expires sooner (a ledger never outlives its filter's TTL).
function ledger.remember(key, id, reply, owner)
  local slot = call('HINCRBY', key, 'next', 1) % ledger.CALLS
  local old = call('HGET', key, 'r:' .. slot)
  if old then call('HDEL', key, 'c:' .. old) end
  call('HSET', key, 'r:' .. slot, id, 'c:' .. id, cmsgpack.pack(reply))
  local left = owner and call('PTTL', owner) or -1
  if left > 0 and left < ledger.SECONDS * 1000 then call('PEXPIRE', key, left)
  else call('EXPIRE', key, ledger.SECONDS) end
end

-- `body()`'s reply, applied once for `id` in the ledger `key` (its time capped by `owner`'s, when given): the kept
-- reply when the ledger holds the id.
function ledger.once(key, id, body, owner)
  local kept = ledger.recall(key, id)
  if kept ~= nil then return kept end
  local reply = body()
  ledger.remember(key, id, reply, owner)
  return reply
end
