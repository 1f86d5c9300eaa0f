-- MurmurHash3 x86_128 (docs/FORMAT.md section 4) in doubles ----------------------------------------------------------
-- Lua numbers are doubles and bit.* works on 32 bits: a product of two 32-bit words is base.lua's `mul`, taken modulo
-- 2^32 in exact 16-bit pieces; sums are taken modulo 2^32 with %, exact for integers below 2^53.

local C1, C2, C3, C4 = 0x239b961b, 0xab0e9789, 0x38b34ae5, 0xa1e38b93
local C1L, C2L, C3L, C4L = C1 % 65536, C2 % 65536, C3 % 65536, C4 % 65536
local C1H, C2H, C3H, C4H = (C1 - C1L) / 65536, (C2 - C2L) / 65536, (C3 - C3L) / 65536, (C4 - C4L) / 65536

local function fmix(h)
  h = bxor(h, rshift(h, 16))
  h = mul(h, 0x85ebca6b)
  h = bxor(h, rshift(h, 13))
  h = mul(h, 0xc2b2ae35)
  h = bxor(h, rshift(h, 16))
  return h % TWO32
end

-- The four words h1..h4 of MurmurHash3_x86_128(key, seed), each in [0, 2^32).
local function murmur(key, seed)
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
    -- k1 *= C1; k1 = rotl(k1, 15); k1 *= C2; h1 ^= k1 (inlined mul: this loop is the hash's cost)
    k1 = (k1 * C1L + (k1 * C1H % 65536) * 65536) % TWO32
    k1 = rol(k1, 15)
    k1 = (k1 * C2L + (k1 * C2H % 65536) * 65536) % TWO32
    h1 = ((rol(bxor(h1, k1), 19) + h2) * 5 + 0x561ccd1b) % TWO32
    k2 = (k2 * C2L + (k2 * C2H % 65536) * 65536) % TWO32
    k2 = rol(k2, 16)
    k2 = (k2 * C3L + (k2 * C3H % 65536) * 65536) % TWO32
    h2 = ((rol(bxor(h2, k2), 17) + h3) * 5 + 0x0bcaa747) % TWO32
    k3 = (k3 * C3L + (k3 * C3H % 65536) * 65536) % TWO32
    k3 = rol(k3, 17)
    k3 = (k3 * C4L + (k3 * C4H % 65536) * 65536) % TWO32
    h3 = ((rol(bxor(h3, k3), 15) + h4) * 5 + 0x96cd1c35) % TWO32
    k4 = (k4 * C4L + (k4 * C4H % 65536) * 65536) % TWO32
    k4 = rol(k4, 18)
    k4 = (k4 * C1L + (k4 * C1H % 65536) * 65536) % TWO32
    h4 = ((rol(bxor(h4, k4), 13) + h1) * 5 + 0x32ac3b17) % TWO32
  end
  local rest = len - blocks
  if rest > 0 then
    local t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15 = byte(key, blocks + 1, len)
    if rest > 12 then
      k4 = t13 + (t14 or 0) * 256 + (t15 or 0) * 65536
      h4 = bxor(h4, mul(rol(mul(k4, C4), 18), C1))
    end
    if rest > 8 then
      k3 = t9 + (t10 or 0) * 256 + (t11 or 0) * 65536 + (t12 or 0) * 16777216
      h3 = bxor(h3, mul(rol(mul(k3, C3), 17), C4))
    end
    if rest > 4 then
      k2 = t5 + (t6 or 0) * 256 + (t7 or 0) * 65536 + (t8 or 0) * 16777216
      h2 = bxor(h2, mul(rol(mul(k2, C2), 16), C3))
    end
    k1 = t1 + (t2 or 0) * 256 + (t3 or 0) * 65536 + (t4 or 0) * 16777216
    h1 = bxor(h1, mul(rol(mul(k1, C1), 15), C2))
  end
  h1 = bxor(h1, len) % TWO32
  h2 = bxor(h2, len) % TWO32
  h3 = bxor(h3, len) % TWO32
  h4 = bxor(h4, len) % TWO32
  h1 = (h1 + h2 + h3 + h4) % TWO32
  h2 = (h2 + h1) % TWO32
  h3 = (h3 + h1) % TWO32
  h4 = (h4 + h1) % TWO32
  h1, h2, h3, h4 = fmix(h1), fmix(h2), fmix(h3), fmix(h4)
  h1 = (h1 + h2 + h3 + h4) % TWO32
  h2 = (h2 + h1) % TWO32
  h3 = (h3 + h1) % TWO32
  h4 = (h4 + h1) % TWO32
  return h1, h2, h3, h4
end

-- Positions (docs/FORMAT.md section 5, narrow: every range here is at most 2^32) ------------------------------------
-- p(i) = h1 + h2 i + h3 i^2 + h4 i^3 mod 2^32 by forward differences, offset_i = floor(p(i) * sigma) with
-- sigma = M * 2^-32 (one IEEE multiply, as the format says), position i = i * stride + offset_i.

-- Writes the k positions of the key whose hash is h1..h4 into `out` (1-based) for a filter `shape` {seed, k, sigma,
