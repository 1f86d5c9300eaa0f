local SHARD_TRAILER = 32 -- the guard (4 bytes), then the shape (28)

local function u32(bytes, at)
  local b1, b2, b3, b4 = byte(bytes, at, at + 3)
  return ((b1 * 256 + b2) * 256 + b3) * 256 + b4
end

-- The shard named by the key argument NAME/i of the filter's generation G (a decimal argument): its key, shape and
-- exception set, checked against its trailer.
local function openShard(where, keyArg, generationText)
  local name, index = match(type(keyArg) == 'string' and keyArg or '', '^(.+)/(%d+)$')
  if name == nil or #index > 7 then
    fail(format("%s: the key argument must be NAME/SHARD, the filter's name and a shard's index, got %s", where, show(keyArg)))
  end
  checkName(name)
  local i = tonumber(index)
  local generation = argInteger(where, 'GENERATION', generationText, 1, TWO32 - 1)
  local g = hexOf(generation)
  local key = 'bloomkit:{' .. keyArg .. '}:shard:' .. g
  local length = call('STRLEN', key)
  local gone = format('no filter %s of generation %.0f with a shard %d (bk_info %s gives the generation and shards)', name, generation, i, name)
  if length < SHARD_TRAILER then fail(gone) end
  local t = call('GETRANGE', key, length - SHARD_TRAILER, length - 1)
  if u32(t, 1) ~= generation then fail(gone) end
  local function bad(what) fail(format('%s: the shape after the guard of %s is not bloomkit\'s (%s)', where, key, what)) end
  if sub(t, 5, 8) ~= 'BKSH' or byte(t, 15) ~= 1 or byte(t, 16) ~= 0 then bad('marker or version') end
  local k = byte(t, 13)
  if k < 1 or k > MAX_HASHES then bad('hashes') end
  local exceptions = byte(t, 14)
  if exceptions > 1 then bad('exceptions') end
  local m = u32(t, 17) * TWO32 + u32(t, 21)
  if m < BLOCK_BITS or m > MAX_BLOCKED_BITS or m % BLOCK_BITS ~= 0 then bad('bits') end
  local blocks = m / BLOCK_BITS
  local per = u32(t, 25)
  if per < 1 or per > blocks or per > TWO32 / BLOCK_BITS then bad('blocks per shard') end
  if u32(t, 29) ~= i or i >= ceil(blocks / per) then bad('shard index') end
  if (min(per, blocks - i * per) * 64) ~= length - SHARD_TRAILER then bad('length') end
  return {
    name = name, index = i, key = key, generation = generation, k = k, blocks = blocks, per = per,
    exceptions = exceptions == 1, set = 'bloomkit:{' .. keyArg .. '}:exceptions:' .. g,
    shape = { seed = u32(t, 9), k = k, sigma = BLOCK_BITS / TWO32, stride = 0 },
  }
end

-- The Redis bit offsets of every item args[from..] in the shard, k per item, after checking that each item belongs
-- to it (nothing is written when one does not).
local function shardOffsets(where, shard, args, from)
  local offsets = {}
  local sigma = shard.blocks / TWO32
  local first = shard.index * shard.per
  local k = shard.k
  for j = from, #args do
    local h1, h2, h3, h4 = murmur(args[j], shard.shape.seed)
    local b = floor(fmix(bxor(bxor(h1, h2), bxor(h3, h4)) % TWO32) * sigma)
    local home = floor(b / shard.per)
    if home ~= shard.index then
      fail(format('%s: item %d (%s) belongs to shard %.0f of %s, not %d: route each item by the shard rule', where, j - from + 1, show(args[j]), home, shard.name, shard.index))
    end
    positionsOfHash(shard.shape, h1, h2, h3, h4, pos)
    local base = (b - first) * BLOCK_BITS
    local at = (j - from) * k
    for h = 1, k do offsets[at + h] = bitOffset(base + pos[h]) end
  end
  return offsets
end


-- bk_shard_madd NAME/i GENERATION ITEM [ITEM ...] -> as bk_madd, for items that all belong to shard i of the blocked
-- filter NAME. The filter's count is not changed here (its meta lives in another slot): add the number of 1s with
-- bk_shard_count.
local function bk_shard_madd(keys, args)
  local where = 'bk_shard_madd'
  items(where, args, 2)
  local shard = openShard(where, keys[1], args[1])
  charge(where, args, 2, shard.k + (shard.exceptions and CALL_UNITS or 0), 0, format('%d positions', shard.k))
  local before = bitfieldOffsets(shard.key, false, 'SET', 'u1', 1, shardOffsets(where, shard, args, 2), false)
  local set = shard.exceptions and shard.set or nil
  return asAdded((addAnswers(before, shard.k, 0, set, #args - 1, function(i) return args[i + 1] end)))
end

-- bk_shard_mexists NAME/i GENERATION ITEM [ITEM ...] -> as bk_mexists, for items of shard i
local function bk_shard_mexists(keys, args)
  local where = 'bk_shard_mexists'
  items(where, args, 2)
  local shard = openShard(where, keys[1], args[1])
  charge(where, args, 2, shard.k + (shard.exceptions and CALL_UNITS or 0), 0, format('%d positions', shard.k))
  local values = bitfieldOffsets(shard.key, true, 'GET', 'u1', nil, shardOffsets(where, shard, args, 2), false)
  local set = shard.exceptions and shard.set or nil
  return presentAnswers(values, shard.k, set, #args - 1, function(i) return args[i + 1] end)
end
