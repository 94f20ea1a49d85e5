-- numerus redisstore engine: one subject's policy tree, kept in one hash, in integer microseconds.
-- It mirrors internal/kernel (which counts nanoseconds) step for step; every number stays an exact
-- integer at or below 2^53, which the Go side guarantees by validating the policy first.
--
-- KEYS[1] the subject's hash.
-- ARGV    op ('a' acquire, 'p' peek, 'r' reset), cost, caller time in µs ('' = server TIME), policy,
--         the least TTL in ms.
-- Reply   {allowed, remaining, limit, retry instant, full instant, now}; -1 stands for never.
-- Hash    p = the policy; "<i>" = the state of leaf i; "<i>.<n>" = entry n of a log leaf i.

local NEVER = math.huge
local MAXI = 2 ^ 53          -- no stored number may exceed it
local REBASE = 2 ^ 50        -- a log rebases its cumulative counts past it
local FOREVER = 2 ^ 53 - 1   -- the expiry of a subject that is never full again
local SEARCH = 64            -- numerus.MaxSearch
local fmod, floor, min, max = math.fmod, math.floor, math.min, math.max

local key, op = KEYS[1], ARGV[1]

local function corrupt(what)
  error({ err = 'NUMERUS_CORRUPT ' .. key .. ': ' .. what })
end

local function fdiv(a, b) return (a - fmod(a, b)) / b end

local function cdiv(a, b)
  local r = fmod(a, b)
  local q = (a - r) / b
  if r > 0 then q = q + 1 end
  return q
end

-- offset returns the position of at within its period of length w aligned on origin, in [0, w).
local function offset(at, origin, w)
  local m = fmod(at - origin, w)
  if m < 0 then m = m + w end
  return m
end

local function int(x, lo, hi) return x ~= nil and x == floor(x) and x >= lo and x <= hi end

local function fmt(x) return string.format('%.0f', x) end

-- numbers parses a state string of exactly n numbers, or returns nil.
local function numbers(s, n)
  if type(s) ~= 'string' then return nil end
  local v = {}
  for w in string.gmatch(s, '%S+') do v[#v + 1] = tonumber(w) end
  if #v ~= n then return nil end
  for i = 1, n do if not int(v[i], -MAXI, MAXI) then return nil end end
  return v
end

-- first returns the least i in [lo, hi) for which pred holds (pred is monotone), or hi.
local function first(lo, hi, pred)
  while lo < hi do
    local mid = floor((lo + hi) / 2)
    if pred(mid) then hi = mid else lo = mid + 1 end
  end
  return lo
end

-- Buckets: GCRA, token and leaky share the reduced rate N tokens per P µs and a size.

local function rate(l, v)
  l.N, l.P, l.size = v[1], v[2], v[3]
  l.full = l.size * l.P
  return l.N >= 1 and l.P >= 1 and l.size >= 1 and l.full + l.N <= MAXI
end

-- flow returns how many scaled units elapse from last to at, capped at limit.
local function flow(l, last, at, limit)
  local el = at - last
  if el >= cdiv(limit, l.N) then return limit end
  return el * l.N
end

local K = {}

K.g = {
  n = 3, new = rate,
  fresh = function() return { q = 0, r = 0, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 3)
    if not v then return nil end
    local st = { q = v[1], r = v[2], last = v[3] }
    if st.q < 0 or st.r < 0 or st.r >= l.N or st.last < 0 then return nil end
    local d = st.q - st.last
    if d > fdiv(l.full, l.N) or (d == fdiv(l.full, l.N) and st.r > fmod(l.full, l.N)) then return nil end
    return st
  end,
  dump = function(st) return fmt(st.q) .. ' ' .. fmt(st.r) .. ' ' .. fmt(st.last) end,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local bq, br = st.q, st.r
    if not (bq > at or (bq == at and br > 0)) then bq, br = at, 0 end
    local s = cost * l.P
    local t = br + fmod(s, l.N)
    local q, r = bq + fdiv(s, l.N) + fdiv(t, l.N), fmod(t, l.N)
    local d, lq, lr = q - at, fdiv(l.full, l.N), fmod(l.full, l.N)
    if d < lq or (d == lq and r <= lr) then return true, at, { q = q, r = r, last = at } end
    local back = (l.size - cost) * l.P
    q, r = st.q - fdiv(back, l.N), st.r - fmod(back, l.N)
    if r < 0 then q, r = q - 1, r + l.N end
    if r > 0 then q = q + 1 end
    return false, q
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    if not (st.q > at or (st.q == at and st.r > 0)) then return l.size, l.size, at end
    local used = (st.q - at) * l.N + st.r
    local full = st.q
    if st.r > 0 then full = full + 1 end
    return l.size, l.size - cdiv(used, l.P), full
  end,
  charge = function(l, at, u)
    local s = u * l.P
    return { q = at + fdiv(s, l.N), r = fmod(s, l.N), last = at }
  end,
}

K.t = {
  n = 3, new = rate,
  fresh = function(l) return { tok = l.full, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 2)
    if not v or v[1] < 0 or v[1] > l.full or v[2] < 0 then return nil end
    return { tok = v[1], last = v[2] }
  end,
  dump = function(st) return fmt(st.tok) .. ' ' .. fmt(st.last) end,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local have, want = st.tok + flow(l, st.last, at, l.full - st.tok), cost * l.P
    if have >= want then return true, at, { tok = have - want, last = at } end
    return false, at + cdiv(want - have, l.N)
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    local have = st.tok + flow(l, st.last, at, l.full - st.tok)
    return l.size, fdiv(have, l.P), at + cdiv(l.full - have, l.N)
  end,
  charge = function(l, at, u) return { tok = (l.size - u) * l.P, last = at } end,
}

K.l = {
  n = 3, new = rate,
  fresh = function() return { lvl = 0, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 2)
    if not v or v[1] < 0 or v[1] > l.full or v[2] < 0 then return nil end
    return { lvl = v[1], last = v[2] }
  end,
  dump = function(st) return fmt(st.lvl) .. ' ' .. fmt(st.last) end,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local lvl, pour = st.lvl - flow(l, st.last, at, st.lvl), cost * l.P
    local over = lvl + pour - l.full
    if over > 0 then return false, at + cdiv(over, l.N) end
    return true, at, { lvl = lvl + pour, last = at }
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    local lvl = st.lvl - flow(l, st.last, at, st.lvl)
    return l.size, fdiv(l.full - lvl, l.P), at + cdiv(lvl, l.N)
  end,
  charge = function(l, at, u) return { lvl = u * l.P, last = at } end,
}

K.f = {
  n = 1,
  new = function(l, v) l.size = v[1]; return l.size >= 1 end,
  fresh = function(l) return { left = l.size, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 1)
    if not v or v[1] < 0 or v[1] > l.size then return nil end
    return { left = v[1], last = 0 }
  end,
  dump = function(st) return fmt(st.left) end,
  debit = function(l, st, at, cost)
    if cost > st.left then return false, NEVER end
    return true, at, { left = st.left - cost, last = 0 }
  end,
  status = function(l, st, at)
    local full = NEVER
    if st.left == l.size then full = at end
    return l.size, st.left, full
  end,
  charge = function(l, at, u) return { left = l.size - u, last = 0 } end,
}

-- Windows: fixed windows and the sliding counter, W µs wide, at most L, aligned on O in [0, W).

local function window(l, v)
  l.W, l.size, l.O = v[1], v[2], v[3]
  return l.W >= 1 and l.size >= 1 and l.O < l.W
end

local function start(l, at) return at - offset(at, l.O, l.W) end

local function aligned(l, s) return offset(s, l.O, l.W) == 0 end

K.w = {
  n = 3, new = window,
  fresh = function() return { s = 0, c = 0, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 3)
    if not v then return nil end
    local st = { s = v[1], c = v[2], last = v[3] }
    if st.c < 0 or st.c > l.size or st.last < 0 or (st.c > 0 and (not aligned(l, st.s) or st.s > st.last)) then
      return nil
    end
    return st
  end,
  dump = function(st) return fmt(st.s) .. ' ' .. fmt(st.c) .. ' ' .. fmt(st.last) end,
  countAt = function(l, st, at)
    local s = start(l, at)
    if s == st.s then return s, st.c end
    return s, 0
  end,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local s, c = K.w.countAt(l, st, at)
    if c + cost > l.size then return false, s + l.W end
    return true, at, { s = s, c = c + cost, last = at }
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    local s, c = K.w.countAt(l, st, at)
    local full = at
    if c > 0 then full = s + l.W end
    return l.size, l.size - c, full
  end,
  charge = function(l, at, u) return { s = start(l, at), c = u, last = at } end,
}

K.c = {
  n = 3, new = function(l, v) return window(l, v) and l.size * l.W <= MAXI end,
  fresh = function() return { s = 0, p = 0, c = 0, last = 0 } end,
  load = function(l, s)
    local v = numbers(s, 4)
    if not v then return nil end
    local st = { s = v[1], p = v[2], c = v[3], last = v[4] }
    if st.p < 0 or st.p > l.size or st.c < 0 or st.c > l.size or st.last < 0 or
        (st.p + st.c > 0 and (not aligned(l, st.s) or st.s > st.last)) then
      return nil
    end
    return st
  end,
  dump = function(st) return fmt(st.s) .. ' ' .. fmt(st.p) .. ' ' .. fmt(st.c) .. ' ' .. fmt(st.last) end,
  countsAt = function(l, st, at)
    local s = start(l, at)
    if s == st.s then return s, st.p, st.c end
    if st.s < s and s - st.s == l.W then return s, st.c, 0 end
    return s, 0, 0
  end,
  -- decayed returns the least elapsed e in [0, W] with weight·(W−e) ≤ room·W.
  decayed = function(l, weight, room)
    if weight == 0 or room >= weight then return 0 end
    return l.W - fdiv(room * l.W, weight)
  end,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local s, prev, cur = K.c.countsAt(l, st, at)
    local room = l.size - cur - cost
    if room >= 0 and prev * (l.W - (at - s)) <= room * l.W then
      return true, at, { s = s, p = prev, c = cur + cost, last = at }
    end
    if room >= 0 then
      local e = K.c.decayed(l, prev, room)
      if e < l.W then return false, s + e end
    end
    return false, s + l.W + K.c.decayed(l, cur, l.size - cost)
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    local s, prev, cur = K.c.countsAt(l, st, at)
    local left = (l.size - cur) * l.W - prev * (l.W - (at - s))
    if left > 0 then left = fdiv(left, l.W) else left = 0 end
    local full = at
    if cur > 0 then full = s + 2 * l.W elseif prev > 0 then full = s + l.W end
    return l.size, left, full
  end,
  charge = function(l, at, u) return { s = start(l, at), p = 0, c = u, last = at } end,
}

-- Logs: the sliding log (quantum 1 µs) and the bucketed window (quantum W/k). A log's state holds
-- its head and tail indexes, the cumulative count before the head, the latest instant and its
-- newest entry inline; entries head .. tail-2 are fields "<i>.<n>" = "at cum". A state built in
-- memory (a policy change) keeps every entry in mem instead; a state that just pushed its newest
-- entry keeps the previous one in pushed until it is written.

local cache = {}

local function entry(l, st, n)
  if n == st.t - 1 then return st.nat, st.ncum end
  if st.pushed and n == st.t - 2 then return st.pushed[1], st.pushed[2] end
  if st.mem then
    local e = st.mem[n]
    return e[1], e[2]
  end
  local f = l.i .. '.' .. fmt(n)
  local e = cache[f]
  if not e then
    local v = numbers(redis.call('HGET', key, f), 2)
    if not v or v[1] < 0 or v[1] > st.nat or v[2] < 0 or v[2] > st.ncum then corrupt('log entry ' .. f) end
    e = v
    cache[f] = e
  end
  return e[1], e[2]
end

-- expire returns the head, base and count of st's live entries at at.
local function expire(l, st, at)
  if st.t == st.h then return st.h, st.base, 0 end
  local cut = at - l.W
  if st.nat <= cut then return st.t, max(st.base, st.ncum), 0 end
  local h = st.h
  if entry(l, st, h) <= cut then
    h = first(st.h, st.t - 1, function(n) return (entry(l, st, n)) > cut end)
  end
  local base = st.base
  if h > st.h then
    local _, c = entry(l, st, h - 1)
    base = max(base, c)
  end
  return h, base, st.ncum - base
end

local function logOf(l, v)
  l.W, l.size, l.Q = v[1], v[2], v[3] or 1
  return l.W >= 1 and l.size >= 1 and l.Q >= 1 and fmod(l.W, l.Q) == 0
end

local function logLoad(l, s)
  local v = numbers(s, 6)
  if not v then return nil end
  local st = { h = v[1], t = v[2], base = v[3], last = v[4], nat = v[5], ncum = v[6] }
  if st.h < 0 or st.t < st.h or st.base < 0 or st.last < 0 or st.ncum < st.base or
      st.ncum - st.base > l.size or (st.t > st.h and (st.nat < 0 or st.nat > st.last)) then
    return nil
  end
  return st
end

local function logDump(st)
  return fmt(st.h) .. ' ' .. fmt(st.t) .. ' ' .. fmt(st.base) .. ' ' .. fmt(st.last) .. ' ' ..
      fmt(st.nat) .. ' ' .. fmt(st.ncum)
end

local LOG = {
  new = logOf,
  fresh = function() return { h = 0, t = 0, base = 0, last = 0, nat = 0, ncum = 0 } end,
  load = logLoad,
  dump = logDump,
  debit = function(l, st, at, cost)
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    local h, base, count = expire(l, st, at)
    local over = count + cost - l.size
    if over > 0 then
      local n = first(h, st.t, function(n)
        local _, c = entry(l, st, n)
        return c - base >= over
      end)
      return false, entry(l, st, n) + l.W
    end
    local q = at - offset(at, 0, l.Q)
    local n = { h = h, t = st.t, base = base, last = at, nat = st.nat, ncum = st.ncum, mem = st.mem }
    if count == 0 then
      n.h, n.t, n.base, n.nat, n.ncum = st.t, st.t + 1, 0, q, cost
    elseif q == st.nat then
      n.ncum = st.ncum + cost
    else
      n.t, n.nat, n.ncum, n.pushed = st.t + 1, q, st.ncum + cost, { st.nat, st.ncum }
    end
    return true, at, n
  end,
  status = function(l, st, at)
    at = max(at, st.last)
    local _, _, count = expire(l, st, at)
    local full = at
    if count > 0 then full = st.nat + l.W end
    return l.size, l.size - count, full
  end,
  charge = function(l, at, u)
    if u == 0 then return { h = 0, t = 0, base = 0, last = at, nat = 0, ncum = 0, mem = {} } end
    return { h = 0, t = 1, base = 0, last = at, nat = at - offset(at, 0, l.Q), ncum = u, mem = {} }
  end,
}

-- materialize returns st with every live entry in memory (a policy change rewrites the hash).
function LOG.materialize(l, st)
  local mem = {}
  for n = st.h, st.t - 2 do mem[n] = { entry(l, st, n) } end
  return { h = st.h, t = st.t, base = st.base, last = st.last, nat = st.nat, ncum = st.ncum, mem = mem }
end

K.s = { n = 2 }
K.b = { n = 3 }
for name, f in pairs(LOG) do K.s[name], K.b[name] = f, f end

-- Policy trees: '&n' and '|n' nodes followed by their n children, in prefix order; leaves are a
-- kind letter and its numbers joined by ':'.

local function parse(str)
  local toks = {}
  for t in string.gmatch(str or '', '%S+') do toks[#toks + 1] = t end
  local pos, leaves, skel = 0, {}, {}
  local function node(depth)
    pos = pos + 1
    local t = toks[pos]
    if not t or depth > 32 then return nil end
    local k, v = string.sub(t, 1, 1), {}
    for x in string.gmatch(string.sub(t, 2), '[^:]+') do
      local n = tonumber(x)
      if not int(n, 0, MAXI) then return nil end
      v[#v + 1] = n
    end
    if k == '&' or k == '|' then
      if #v ~= 1 or v[1] < 1 then return nil end
      skel[#skel + 1] = t
      local n = { k = k, c = {} }
      for i = 1, v[1] do
        n.c[i] = node(depth + 1)
        if not n.c[i] then return nil end
      end
      return n
    end
    local spec = K[k]
    if not spec or #v ~= spec.n then return nil end
    local l = { k = k, tok = t, i = #leaves + 1 }
    if not spec.new(l, v) then return nil end
    leaves[l.i] = l
    skel[#skel + 1] = '.'
    return l
  end
  local root = node(0)
  if not root or pos ~= #toks then return nil end
  return root, leaves, table.concat(skel, ' ')
end

-- debit mirrors the kernel's DebitN over a tree: it returns whether the tree admits cost at at, the
-- answer (at on admission), and the new states of the leaves it charged.
local debit

-- search moves from on until every child of an And admits cost there, as numerus.allOf does.
local function search(node, S, from, cost)
  for _ = 1, SEARCH do
    local moved = from
    for _, c in ipairs(node.c) do
      local ok, f = debit(c, S, from, cost)
      if not ok then moved = max(moved, f) end
    end
    if moved == NEVER or not (moved > from) then return moved end
    from = moved
  end
  return NEVER
end

debit = function(node, S, at, cost)
  if node.i then
    local ok, from, st = K[node.k].debit(node, S[node.i], at, cost)
    if ok then return true, at, { [node.i] = st } end -- the caller's instant, as numerus.single
    return false, from
  end
  if node.k == '&' then
    local from, ok, changes = at, true, {}
    for _, c in ipairs(node.c) do
      local cok, f, ch = debit(c, S, at, cost)
      if cok then
        for i, st in pairs(ch) do changes[i] = st end
      else
        from, ok = max(from, f), false
        if from == NEVER then return false, NEVER end
      end
    end
    if ok then return true, at, changes end
    return false, search(node, S, from, cost)
  end
  local from, changes = NEVER, nil
  for _, c in ipairs(node.c) do
    local cok, f, ch = debit(c, S, at, cost)
    if cok then
      changes = changes or {}
      for i, st in pairs(ch) do changes[i] = st end
    end
    from = min(from, f)
  end
  if changes then return true, at, changes end
  return false, from
end

-- status mirrors the kernel's Status over a tree: limit, remaining and the instant it is full.
local function status(node, S, at)
  if node.i then return K[node.k].status(node, S[node.i], at) end
  local lim, rem, full = 0, 0, at
  if node.k == '&' then lim, rem = NEVER, NEVER end
  for _, c in ipairs(node.c) do
    local cl, cr, cf = status(c, S, at)
    if node.k == '&' then lim, rem = min(lim, cl), min(rem, cr) else lim, rem = max(lim, cl), max(rem, cr) end
    full = max(full, cf)
  end
  return lim, rem, full
end

-- Loading, converting and writing states.

local function fields(leaves)
  local f = { 'p' }
  for i = 1, #leaves do f[i + 1] = tostring(i) end
  return f
end

local function load(leaves, vals, off)
  local S = {}
  for i, l in ipairs(leaves) do
    local st = K[l.k].load(l, vals[i + off])
    if not st then corrupt('state of leaf ' .. i .. ' (' .. l.tok .. ')') end
    S[i] = st
  end
  return S
end

local function charge(l, at, rem)
  return K[l.k].charge(l, at, l.size - max(0, min(rem, l.size)))
end

-- convert carries the states S0 kept under the tree root0 over to a new policy, at the latest of
-- now and every instant they hold. A leaf identical to the old one at its place keeps its state;
-- any other leaf starts with the lesser of its new capacity and what the old leaf at its place had
-- left (the old tree's remaining, when the trees differ in shape). So nothing is ever minted: a
-- larger capacity does not refill, and alternating policies never hands out more than was left.
local function convert(root0, leaves0, skel0, S0, leaves, skel, now)
  local at = now
  for i in ipairs(leaves0) do at = max(at, S0[i].last) end
  local rem
  if skel0 ~= skel then rem = select(2, status(root0, S0, at)) end
  local S = {}
  for i, l in ipairs(leaves) do
    local lo, so = leaves0[i], S0[i]
    if rem then
      S[i] = charge(l, at, rem)
    elseif lo.tok == l.tok then
      S[i] = so
      if K[l.k].materialize then S[i] = K[l.k].materialize(l, so) end
    else
      local _, r = K[lo.k].status(lo, so, at)
      S[i] = charge(l, at, r)
    end
  end
  return S
end

local function hset(args)
  for i = 1, #args, 2000 do
    redis.call('HSET', key, unpack(args, i, min(i + 1999, #args)))
  end
end

-- writeLog queues the fields of a log leaf that go from old to new: all of its entries when old is
-- nil (the hash is rewritten) or when the cumulative counts are rebased.
local function writeLog(l, old, new, args, dels)
  if old then
    for n = old.h, min(new.h, old.t - 1) - 1 do dels[#dels + 1] = l.i .. '.' .. fmt(n) end
  end
  if new.base >= REBASE and new.t > new.h then
    local mem = {}
    for n = new.h, new.t - 2 do
      local a, c = entry(l, new, n)
      mem[n] = { a, c - new.base }
    end
    new = { h = new.h, t = new.t, base = 0, last = new.last, nat = new.nat, ncum = new.ncum - new.base, mem = mem }
    old = nil
  end
  if old then
    if new.t == old.t + 1 and new.h <= old.t - 1 then
      args[#args + 1] = l.i .. '.' .. fmt(old.t - 1)
      args[#args + 1] = fmt(old.nat) .. ' ' .. fmt(old.ncum)
    end
    return new
  end
  for n = new.h, new.t - 2 do
    local a, c = entry(l, new, n)
    args[#args + 1] = l.i .. '.' .. fmt(n)
    args[#args + 1] = fmt(a) .. ' ' .. fmt(c)
  end
  return new
end

-- write stores the states S that changed; all of them when all is set, after a DEL when rewrite is.
local function write(leaves, S0, S, changed, all, rewrite, pol)
  local args, dels = { 'p', pol }, {}
  if rewrite then redis.call('DEL', key) end
  for i, l in ipairs(leaves) do
    if all or changed[i] then
      local st = S[i]
      if l.k == 's' or l.k == 'b' then
        local old = S0[i]
        if rewrite then old = nil end
        st = writeLog(l, old, st, args, dels)
      end
      args[#args + 1] = tostring(i)
      args[#args + 1] = K[l.k].dump(st)
    end
  end
  if #dels > 0 then redis.call('HDEL', key, unpack(dels)) end
  hset(args)
end

-- Main.

if op == 'r' then
  redis.call('DEL', key)
  return 1
end

local cost = tonumber(ARGV[2])
local now
if ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[3])
end
local pol, ttl = ARGV[4], tonumber(ARGV[5])
local root, leaves, skel = parse(pol)
if not root or not int(cost, 1, MAXI) or not int(now, 0, MAXI) or not int(ttl, 1, MAXI) then
  return redis.error_reply('NUMERUS_ARGS bad arguments for ' .. key)
end

local vals = redis.pcall('HMGET', key, unpack(fields(leaves)))
if vals.err then corrupt('not a hash: ' .. vals.err) end

local S, S0, rewrite, fresh = nil, nil, false, false
if vals[1] == pol then
  S = load(leaves, vals, 1)
elseif vals[1] then
  local root0, leaves0, skel0 = parse(vals[1])
  if not root0 then corrupt('unreadable policy') end
  local S0raw = load(leaves0, redis.call('HMGET', key, unpack(fields(leaves0))), 1)
  S = convert(root0, leaves0, skel0, S0raw, leaves, skel, now)
  rewrite = true
else
  if redis.call('EXISTS', key) == 1 then corrupt('no policy field') end
  S, fresh = {}, true
  for i, l in ipairs(leaves) do S[i] = K[l.k].fresh(l) end
end
S0 = S

local ok, from, changes
if op == 'p' then
  ok, from = debit(root, S, now, 1)
else
  ok, from, changes = debit(root, S, now, cost)
  if ok then
    local S1 = {}
    for i = 1, #leaves do S1[i] = changes[i] or S[i] end
    S = S1
  end
end
local lim, rem, full = status(root, S, now)

if op == 'a' and (ok or rewrite) then
  write(leaves, S0, S, changes or {}, fresh or rewrite, rewrite, pol)
  local until_ = full
  if full == NEVER then until_ = FOREVER end
  redis.call('PEXPIRE', key, fmt(max(ttl, cdiv(max(0, until_ - now), 1000))))
end

if from == NEVER then from = -1 end
if full == NEVER then full = -1 end
local flag = 0
if ok then flag = 1 end
return { flag, rem, lim, from, full, now }
