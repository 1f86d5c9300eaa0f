-- stride}; positions() hashes the key first.
local function positionsOfHash(shape, p, d1, d2, d3, out)
  d1, d2, d3 = (d1 + d2 + d3) % TWO32, (2 * d2 + 6 * d3) % TWO32, 6 * d3 % TWO32
  local sigma, stride = shape.sigma, shape.stride
  for i = 0, shape.k - 1 do
    out[i + 1] = i * stride + floor(p * sigma)
    p = (p + d1) % TWO32
    d1 = (d1 + d2) % TWO32
    d2 = (d2 + d3) % TWO32
  end
  return out
end

local function positions(shape, key, out)
  local h1, h2, h3, h4 = murmur(key, shape.seed)
  return positionsOfHash(shape, h1, h2, h3, h4, out)
end

-- Redis numbers a string's bits from the most significant of each byte, the format from the least: i XOR 7.
local function bitOffset(i)
  local r = i % 8
  return i - r + 7 - r
end

-- Counter i's BITFIELD offset: byte i (8-bit), or nibble i mod 2 of byte floor(i / 2), low nibble first (4-bit).
local function counterOffset(i, width)
  if width == 8 then return 8 * i end
  local r = i % 2
  return 4 * (i - r) + 4 - 4 * r
end

-- Kinds -------------------------------------------------------------------------------------------------------------
-- The rate formulas are those of @bloomkit/core (params.ts), and sizing is its chooseShape: for every k in [1, 64]
-- the least number of units (m = units * unit(k)) whose predicted rate is at most p, keeping the least m (then the
-- least k). Lua has no log1p and expm1: they are computed from log and exp with the usual correction (Goldberg,
-- "What every computer scientist should know about floating-point arithmetic", 1991, Theorem 4), within a few ulps
-- of core's, so on a boundary the two may pick m one unit apart; a filter is identified by the capacity and rate it
