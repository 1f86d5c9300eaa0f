#!lua name=bkproto
-- The bench's yardstick for the function library (pnpm bench --redis, contender functions-prototype): the least a
-- function can do for a standard filter's batch, with none of the library's checks (no meta hash, no guard, no
-- budget, no count). MurmurHash3 x86_128 in Lua over 16-bit split multiplies, positions by forward differences
-- (docs/FORMAT.md sections 4 and 5), Redis offsets as numbers, one BITFIELD per <= 250 keys for an add; a lookup
-- hashes each key once and reads in two rounds (the first two offsets of every key, then the rest of the keys whose
-- first two are set). FCALL proto_madd 1 STRING m k seed ITEM...; FCALL_RO proto_mexists likewise.
local TWO32 = 4294967296
local C1, C2, C3, C4 = 0x239b961b, 0xab0e9789, 0x38b34ae5, 0xa1e38b93
local C1L, C2L, C3L, C4L = C1 % 65536, C2 % 65536, C3 % 65536, C4 % 65536
local C1H, C2H, C3H, C4H = (C1 - C1L) / 65536, (C2 - C2L) / 65536, (C3 - C3L) / 65536, (C4 - C4L) / 65536
local function mul(a, c) local lo = c % 65536; return (a * lo + (a * ((c - lo) / 65536) % 65536) * 65536) % TWO32 end
local function murmur(key, seed)
  local byte, bxor, rol, rshift = string.byte, bit.bxor, bit.rol, bit.rshift
  local len = #key
  local h1, h2, h3, h4 = seed, seed, seed, seed
  local k1, k2, k3, k4
  local blocks = len - len % 16
  for at = 1, blocks, 16 do
    local a1, a2, a3, a4, b1, b2, b3, b4, c1, c2, c3, c4, d1, d2, d3, d4 = byte(key, at, at + 15)
    k1 = a1 + a2 * 256 + a3 * 65536 + a4 * 16777216
    k2 = b1 + b2 * 256 + b3 * 65536 + b4 * 16777216
    k3 = c1 + c2 * 256 + c3 * 65536 + c4 * 16777216
    k4 = d1 + d2 * 256 + d3 * 65536 + d4 * 16777216
    k1 = (k1 * C1L + (k1 * C1H % 65536) * 65536) % TWO32; k1 = rol(k1, 15); k1 = (k1 * C2L + (k1 * C2H % 65536) * 65536) % TWO32
    h1 = ((rol(bxor(h1, k1), 19) + h2) * 5 + 0x561ccd1b) % TWO32
    k2 = (k2 * C2L + (k2 * C2H % 65536) * 65536) % TWO32; k2 = rol(k2, 16); k2 = (k2 * C3L + (k2 * C3H % 65536) * 65536) % TWO32
    h2 = ((rol(bxor(h2, k2), 17) + h3) * 5 + 0x0bcaa747) % TWO32
    k3 = (k3 * C3L + (k3 * C3H % 65536) * 65536) % TWO32; k3 = rol(k3, 17); k3 = (k3 * C4L + (k3 * C4H % 65536) * 65536) % TWO32
    h3 = ((rol(bxor(h3, k3), 15) + h4) * 5 + 0x96cd1c35) % TWO32
    k4 = (k4 * C4L + (k4 * C4H % 65536) * 65536) % TWO32; k4 = rol(k4, 18); k4 = (k4 * C1L + (k4 * C1H % 65536) * 65536) % TWO32
    h4 = ((rol(bxor(h4, k4), 13) + h1) * 5 + 0x32ac3b17) % TWO32
  end
  local rest = len - blocks
  if rest > 0 then
    local t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15 = byte(key, blocks + 1, len)
    if rest > 12 then h4 = bxor(h4, mul(rol(mul(t13 + (t14 or 0) * 256 + (t15 or 0) * 65536, C4), 18), C1)) end
    if rest > 8 then h3 = bxor(h3, mul(rol(mul(t9 + (t10 or 0) * 256 + (t11 or 0) * 65536 + (t12 or 0) * 16777216, C3), 17), C4)) end
    if rest > 4 then h2 = bxor(h2, mul(rol(mul(t5 + (t6 or 0) * 256 + (t7 or 0) * 65536 + (t8 or 0) * 16777216, C2), 16), C3)) end
    h1 = bxor(h1, mul(rol(mul(t1 + (t2 or 0) * 256 + (t3 or 0) * 65536 + (t4 or 0) * 16777216, C1), 15), C2))
  end
  h1 = bxor(h1, len) % TWO32; h2 = bxor(h2, len) % TWO32; h3 = bxor(h3, len) % TWO32; h4 = bxor(h4, len) % TWO32
  h1 = (h1 + h2 + h3 + h4) % TWO32; h2 = (h2 + h1) % TWO32; h3 = (h3 + h1) % TWO32; h4 = (h4 + h1) % TWO32
  local function fmix(h)
    h = bxor(h, rshift(h, 16)); h = mul(h, 0x85ebca6b); h = bxor(h, rshift(h, 13)); h = mul(h, 0xc2b2ae35)
    return bxor(h, rshift(h, 16)) % TWO32
  end
  h1, h2, h3, h4 = fmix(h1), fmix(h2), fmix(h3), fmix(h4)
  h1 = (h1 + h2 + h3 + h4) % TWO32; h2 = (h2 + h1) % TWO32; h3 = (h3 + h1) % TWO32; h4 = (h4 + h1) % TWO32
  return h1, h2, h3, h4
end
local function run(keys, args, set)
  local m, k, seed = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
  local sigma = m / TWO32
  local floor = math.floor
  local out, cmd, n, first = {}, {}, 0, 4
  local function flush(upto)
    if n == 0 then return end
    local reply = set and redis.call('BITFIELD', keys[1], unpack(cmd, 1, n)) or redis.call('BITFIELD_RO', keys[1], unpack(cmd, 1, n))
    for i = first, upto do
      local base = (i - first) * k
      local v = set and 0 or 1
      for h = 1, k do if reply[base + h] == 0 then v = set and 1 or 0; break end end
      out[#out + 1] = v
    end
    n = 0
  end
  for i = 4, #args do
    local p, d1, d2, d3 = murmur(args[i], seed)
    d1, d2, d3 = (d1 + d2 + d3) % TWO32, (2 * d2 + 6 * d3) % TWO32, 6 * d3 % TWO32
    for h = 1, k do
      local x = floor(p * sigma)
      local r = x % 8
      if set then cmd[n + 1], cmd[n + 2], cmd[n + 3], cmd[n + 4] = 'SET', 'u1', x - r + 7 - r, 1; n = n + 4
      else cmd[n + 1], cmd[n + 2], cmd[n + 3] = 'GET', 'u1', x - r + 7 - r; n = n + 3 end
      p = (p + d1) % TWO32; d1 = (d1 + d2) % TWO32; d2 = (d2 + d3) % TWO32
    end
    if (i - 3) % 250 == 0 then flush(i); first = i + 1 end
  end
  flush(#args)
  return out
end
redis.register_function('proto_madd', function(keys, args) return run(keys, args, true) end)
-- Membership in two rounds: the first two offsets of up to 250 keys in one BITFIELD_RO, then the other k - 2 of the
-- keys whose first two were set; each key hashed once.
local function has(keys, args)
  local m, k, seed = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
  local sigma = m / TWO32
  local floor = math.floor
  local out, offs = {}, {}
  local from = 4
  while from <= #args do
    local last = math.min(#args, from + 249)
    local cmd, n = {}, 0
    for i = from, last do
      local p, d1, d2, d3 = murmur(args[i], seed)
      d1, d2, d3 = (d1 + d2 + d3) % TWO32, (2 * d2 + 6 * d3) % TWO32, 6 * d3 % TWO32
      local base = (i - from) * k
      for h = 1, k do
        local x = floor(p * sigma)
        local r = x % 8
        offs[base + h] = x - r + 7 - r
        p = (p + d1) % TWO32; d1 = (d1 + d2) % TWO32; d2 = (d2 + d3) % TWO32
      end
      cmd[n + 1], cmd[n + 2], cmd[n + 3], cmd[n + 4], cmd[n + 5], cmd[n + 6] = 'GET', 'u1', offs[base + 1], 'GET', 'u1', offs[base + 2]
      n = n + 6
    end
    local reply = redis.call('BITFIELD_RO', keys[1], unpack(cmd, 1, n))
    local cands, rest, r = {}, {}, 0
    for i = from, last do
      local j = i - from
      if reply[2 * j + 1] == 1 and reply[2 * j + 2] == 1 then
        out[i - 3] = 1
        cands[#cands + 1] = i
        for h = 3, k do rest[r + 1], rest[r + 2], rest[r + 3] = 'GET', 'u1', offs[j * k + h]; r = r + 3 end
      else out[i - 3] = 0 end
    end
    if r > 0 then
      local more = redis.call('BITFIELD_RO', keys[1], unpack(rest, 1, r))
      for c = 1, #cands do
        for h = 1, k - 2 do if more[(c - 1) * (k - 2) + h] == 0 then out[cands[c] - 3] = 0; break end end
      end
    end
    from = last + 1
  end
  return out
end
redis.register_function{function_name = 'proto_mexists', callback = has, flags = {'no-writes'}}
