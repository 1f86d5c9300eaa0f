-- fuse.lua: a binary fuse filter's fingerprints in one Redis string (BinaryFuseFilter of @bloomkit/fuse, docs/
-- FORMAT.md section 3.8), read by both doors; the set is fixed, so nothing here writes. Fingerprint j is the u8 at
-- byte j, or the u16 little-endian at byte 2j; the guard follows the array.
--
-- A key's 64-bit hash k is the first 64 bits of MurmurHash3 x86_128 (h1 the low word, h2 the high). With the
-- filter's 64-bit seed S: hash = fmix64(k + S) mod 2^64; its fingerprint is the low f bits of hash XOR (hash >> 32);
-- its slots are h0 = floor(hash * cL / 2^64), h1 = (h0 + L) XOR ((hash >> 18) AND (L - 1)), h2 = (h0 + 2L) XOR
-- (hash AND (L - 1)), for segments of L slots and cL = c * L (c segments a first slot may fall in). A key is present
-- when its fingerprint XOR the three slots' is 0.
--
-- Lua's numbers are doubles: a 64-bit value is two 32-bit words (high, low), each in [0, 2^32), and every product is
-- taken over 16-bit halves so that each partial product is below 2^48, exact (as u64.ts of @bloomkit/fuse does).

-- Every rule of the kind lives in this one table (a Lua chunk holds at most 200 locals; the library is one chunk).
local fuse = {
  MAX_SEGMENT_LENGTH = 262144, -- 2^18, the reference's cap
}

-- The 64-bit product of two words, (high, low).
function fuse.mul32(a, b)
  local aLow, bLow = a % 65536, b % 65536
  local aHigh, bHigh = (a - aLow) / 65536, (b - bLow) / 65536
  local middle = aLow * bHigh + aHigh * bLow -- below 2^33
  local middleLow = middle % 65536
  local low = aLow * bLow + middleLow * 65536 -- below 2^33
  local lowWord = low % TWO32
  return (aHigh * bHigh + (middle - middleLow) / 65536 + (low - lowWord) / TWO32) % TWO32, lowWord
end

-- (aHigh:aLow) * (bHigh:bLow) mod 2^64, as (high, low).
function fuse.mul64(aHigh, aLow, bHigh, bLow)
  local high, low = fuse.mul32(aLow, bLow)
  return (high + mul(aHigh, bLow) + mul(aLow, bHigh)) % TWO32, low
end

-- The mixed hash of the key whose 64-bit hash is (high:low), under the seed (seedHigh:seedLow): fmix64 of their
-- sum, MurmurHash3's finalizer (h ^= h >> 33; h *= 0xff51afd7ed558ccd; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53;
-- h ^= h >> 33; a shift by 33 is the high word shifted by 1, into the low word).
function fuse.mix(high, low, seedHigh, seedLow)
  low = low + seedLow
  local carry = low >= TWO32 and 1 or 0
  low = low % TWO32
  high = (high + seedHigh + carry) % TWO32
  high, low = fuse.mul64(high, bxor(low, rshift(high, 1)) % TWO32, 0xff51afd7, 0xed558ccd)
  high, low = fuse.mul64(high, bxor(low, rshift(high, 1)) % TWO32, 0xc4ceb9fe, 0x1a85ec53)
  return high, bxor(low, rshift(high, 1)) % TWO32
end

-- The segments of a set built from `size` keys: L and c, as fuseLayout of @bloomkit/fuse (the reference's sizing,
-- its uint32 steps kept): L = 2^floor(ln(size) / ln(3.33) + 2.25) capped at 2^18 (4 for size 0); a capacity of
-- round(size * max(1.125, 0.875 + 0.25 * ln(10^6) / ln(size))) slots (0 for size <= 1); c = ceil(capacity / L) - 2,
-- at least 1.
function fuse.layout(size)
  local L = 4
  if size > 0 then L = min(fuse.MAX_SEGMENT_LENGTH, 2 ^ floor(log(size) / log(3.33) + 2.25)) end
  local capacity = 0
  if size > 1 then capacity = floor(size * max(1.125, 0.875 + 0.25 * log(1000000) / log(size)) + 0.5) % TWO32 end
  local initial = (floor((capacity + L - 1) / L) - 2) % TWO32
  local arrayLength = ((initial + 2) * L) % TWO32
  local c = floor(((arrayLength + L - 1) % TWO32) / L)
  if c <= 2 then c = 1 else c = c - 2 end
  return L, c
end

-- What a lookup needs of a filter of f-bit fingerprints built from `size` keys with the seed in 16 hex digits.
function fuse.shape(f, size, seedHex)
  local L, c = fuse.layout(size)
  return { f = f, ftype = 'u' .. f, fmask = 2 ^ f - 1, L = L, mask = L - 1, cL = (c * L) % TWO32,
    bits = (c + 2) * L * f, seedHigh = tonumber(sub(seedHex, 1, 8), 16), seedLow = tonumber(sub(seedHex, 9, 16), 16) }
end

-- The three slots of a mixed hash (high:low).
function fuse.slots(s, high, low)
  local band = bit.band
  -- floor(hash * cL / 2^64): the high word of high * cL, plus the carry of its low word and (low * cL)'s high word.
  local upper, lower = fuse.mul32(high, s.cL)
  local carried = fuse.mul32(low, s.cL)
  local first = upper + floor((lower + carried) / TWO32)
  -- (hash >> 18) AND mask: bits 18..35 of the hash, masked.
  local second = bxor(first + s.L, band((high % 16) * 16384 + floor(low / 262144), s.mask))
  return first, second, bxor(first + 2 * s.L, band(low, s.mask))
end

-- A fingerprint as BITFIELD's GET read it: u16 big-endian at the slot's bits, the array's u16 little-endian.
function fuse.value(s, read)
  if s.f == 8 then return read end
  local lowByte = read % 256
  return lowByte * 256 + (read - lowByte) / 256
end

-- Membership of n keys: 1 or 0 each. hashOf(i) gives key i's 64-bit hash (low, high); readAll(offsets, ftype)
-- reads the fingerprints at those bit offsets in order (bits.lua's bitfieldOffsets on the filter's string).
function fuse.hasAll(s, n, hashOf, readAll)
  local offsets, fingerprints = {}, {}
  local band, f = bit.band, s.f
  for i = 1, n do
    local keyLow, keyHigh = hashOf(i)
    local high, low = fuse.mix(keyHigh, keyLow, s.seedHigh, s.seedLow)
    local a, b, c = fuse.slots(s, high, low)
    fingerprints[i] = band(bxor(low, high), s.fmask)
    offsets[3 * i - 2], offsets[3 * i - 1], offsets[3 * i] = a * f, b * f, c * f
  end
  local values = readAll(offsets, s.ftype)
  local out = {}
  for i = 1, n do
    local x = fingerprints[i]
    for j = 3 * i - 2, 3 * i do x = bxor(x, fuse.value(s, values[j])) end
    out[i] = x == 0 and 1 or 0
  end
  return out
end
