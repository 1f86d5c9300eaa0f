-- was sized for, not by its m (see sameFilter).

local function log1p(x)
  local u = 1 + x
  if u == 1 then return x end
  return log(u) * x / (u - 1)
end

local function expm1(x)
  local u = exp(x)
  if u == 1 then return x end
  local um1 = u - 1
  if um1 == -1 then return -1 end
  return um1 * x / log(u)
end

local function standardRate(m, n, k)
  if m == 1 then return 1 end
  return (-expm1(k * n * log1p(-1 / m))) ^ k
end

local function partitionedRate(m, n, k)
  local s = ceil(m / k)
  if s == 1 then return 1 end
  return (-expm1(n * log1p(-1 / s))) ^ k
end

-- The kinds, each by its storage family (meta.lua checks a family's fields, filters.lua serves it). `creates`: the
-- functions create it (bk_reserve, bk_insert); the others are created by @bloomkit/redis or bloomkit push, which
-- write their shapes into the meta hash.
local KINDS = {
  standard = { storage = 'bits', unit = function() return 1 end, rate = standardRate, sliced = false, creates = true },
  partitioned = { storage = 'bits', unit = function(k) return k end, rate = partitionedRate, sliced = true, creates = true },
  counting = { storage = 'counters', unit = function() return 1 end, rate = standardRate, sliced = false, creates = true },
  -- A chain of partitioned sub-filters in one slot, sub-filter j in bloomkit:{NAME}:sub:j:GEN, the chain's length in
  -- the meta hash's `filters`, each sub-filter's count in `count:j`, and the m and k of every sub-filter the chain may
  -- hold in `shapes` (chain-shapes.ts of @bloomkit/redis).
  scalable = { storage = 'chain', sliced = true, creates = true },
  -- Spans slots: the verbs on its name read its meta only (bk_info, bk_card, bk_shard_count); its items go to their shards
  -- (bk_shard_madd, bk_shard_mexists).
  blocked = { storage = 'shards', unit = function() return 512 end, sliced = false },
  -- k + l slices in one string, the generations' state in the meta hash.
  window = { storage = 'ring', sliced = true },
  -- n buckets of b slots of f bits in one string (cuckoo.lua), the guard after them; f:b:n:kicks in `table`.
  cuckoo = { storage = 'cuckoo', creates = true },
  -- A fixed set: its fingerprints in one string (fuse.lua), the guard after them; f:seed in `fuse`. Built elsewhere
  -- (bloomkit build) and pushed; only read here.
  fuse = { storage = 'fuse' },
}
local KIND_NAMES = 'standard, partitioned, counting, scalable, cuckoo'
local SERVED = 'standard, partitioned, counting, scalable, cuckoo, blocked (by shard), window and fuse (read-only)'

-- m and k for n keys at rate p (chooseShape of @bloomkit/core).
local function chooseShape(kind, n, p, fromK, toK)
  local maxBits = 2 ^ 48
  local bestBits, bestK
  for k = fromK or 1, toK or MAX_HASHES do
    local unit = kind.unit(k)
    local maxUnits = floor(maxBits / unit)
    local function fits(units) return kind.rate(units * unit, n, k) <= p end
    local hi = max(1, min(maxUnits, ceil(min(ceil(-n * log(p) / 0.4804530139182014), maxBits) / unit)))
    while not fits(hi) and hi < maxUnits do hi = min(maxUnits, hi * 2) end
    if fits(hi) then
      local lo = floor(hi / 4)
      if lo > 0 and fits(lo) then lo = 0 end
      while hi - lo > 1 do
        local mid = floor((lo + hi) / 2)
        if fits(mid) then hi = mid else lo = mid end
      end
      local bits = hi * unit
      if bestBits == nil or bits < bestBits then bestBits, bestK = bits, k end
    end
  end
  return bestBits, bestK
end

-- A cuckoo filter's table for n keys at rate p in buckets of b (planShape of @bloomkit/cuckoo): n / (b * load)
-- buckets at the load a table of b-slot buckets is sized for, and the fewest fingerprint bits f in [4, 24] whose rate
-- at that load, 1 - (1 - 1 / (2^f - 1))^(2 b load), is at most p. Returns f and the buckets, or nil when even 24 bits
-- give more than p.
function cuckoo.rate(f, b, load)
  return -expm1(2 * b * load * log(1 - 1 / (2 ^ f - 1)))
end

function cuckoo.size(n, p, b)
  local load = cuckoo.LOAD[b]
  local f = 4
  while f < 24 and cuckoo.rate(f, b, load) > p do f = f + 1 end
  if cuckoo.rate(f, b, load) > p then return nil end
  return f, max(1, ceil(n / (b * load)))
end

-- The schedule of a scalable filter (docs/FORMAT.md section 3.4; Almeida et al., "Scalable Bloom Filters", 2007):
-- sub-filter j holds c_j keys at rate P_j, c_0 = n0, c_(j+1) = ceil(c_j * g), P_0 = P * (1 - r), P_(j+1) = P_j * r,
-- each one IEEE operation, as every reader computes them (never pow). Calls each(j, c_j, P_j) for j = 0, 1, ...
-- while c_j is below 2^53, P_j at least 2^-1022 and j below 512 (the chains a file can hold), until it returns false.
local MIN_GROWTH, MAX_GROWTH, DEFAULT_GROWTH, DEFAULT_TIGHTENING = 1.125, 4, 1.5, 0.93
local function eachSubFilter(n0, fpr, g, r, each)
  local c, p = n0, fpr * (1 - r)
  for j = 0, MAX_SUB_FILTERS - 1 do
    if c > MAX_SAFE or not (p >= 2 ^ -1022) then return end
    if each(j, c, p) == false then return end
    c, p = ceil(c * g), p * r
  end
end

-- The meta hash's `shapes` for a new scalable filter: m:k of every sub-filter of the schedule, sized as the
-- partitioned kind, up to the first that would not fit one Redis string (chainShapes of @bloomkit/redis). Written
-- once: whoever grows the chain reads the next sub-filter's shape there, so no two writers size it apart.
local function chainShapes(n0, fpr, g, r)
  local shapes = {}
  eachSubFilter(n0, fpr, g, r, function(_, c, p)
    -- The best k is within a few of log2(1/p) (the rate is far from it, by whole factors, a few k away), so only
    -- those are tried: a reserve blocks the server, and a chain may list hundreds of sub-filters.
    local around = floor(-log(p) / log(2) + 0.5)
    local bits, k = chooseShape(KINDS.partitioned, c, p, max(1, min(around, MAX_HASHES) - 6), min(MAX_HASHES, around + 6))
    if bits == nil or bits > TWO32 then return false end
    shapes[#shapes + 1] = format('%.0f:%d', bits, k)
  end)
  return table.concat(shapes, ' '), #shapes
end

-- The meta hash: a filter's parameters (params.ts of @bloomkit/redis) ------------------------------------------------
