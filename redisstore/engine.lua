-- numerus redisstore engine: each subject's limiter state in one key, in integer microseconds. It
-- mirrors internal/kernel (which counts nanoseconds) step for step; every number stays an exact
-- integer at or below 2^53, which the Go side guarantees by validating the policy first.
--
-- One check:   KEYS[1] the subject's key.
--              ARGV op ('a' acquire, 'p' peek, 'r' reset), cost, caller time in µs ('' = server
--              TIME), the least TTL in ms, the policy's tokens joined by spaces, then the tokens:
--              '&' or '|' and a child count before the children, or a kind letter and its
--              numbers (see policy.go), in prefix order.
--              Reply: the decision (see below).
-- A batch:     KEYS the subjects' keys, all acquired under one policy, one after the other.
--              ARGV 'B', the least TTL, a cost and a caller time, the joined tokens, the tokens,
--              then, unless every key has that cost and time, each key's cost and caller time
--              ('' = server TIME, read once).
--              Reply: for each check that failed, its index (from 1) and its error; then the
--              decisions of all, one after the other (zeros for those that failed).
-- Decision     little-endian doubles: allowed (0 or 1), remaining, limit, retry instant, full
--              instant, now; -1 stands for never.
-- Keys         A plain policy (one leaf that is not a log) keeps a string: the joined tokens, a
--              zero byte, and the leaf's state. Every other policy keeps a hash: p = the joined
--              tokens; "<i>" = the state of leaf i; "<i>.<n>" = entry n of log leaf i (at, cum).
--              States are little-endian doubles (struct.pack), exact up to 2^53.
--
-- The script runs in full on every call, and each function it defines is a closure made anew, at
-- a cost of one binding per upvalue, so it defines few, and none with many upvalues. A subject
-- under a plain policy, kept under that policy or not at all (the common case), takes the fast
-- path: straight-line code on plain numbers, one GET and one SET. Every other check runs the
-- general engine, which is defined only then, and which defines the code only logs, trees or a
-- policy change need when they do. Both decide alike: the differential tests run every kind alone
-- (the fast path) and in trees (the engine), against the in-process limiters.

-- plain reports whether k, a, b, c (and nothing after them: extra) are a plain policy: one leaf of
-- kind g, t, l, f, w or c (see leafOf below), whose numbers the script can run exactly.
local function plain(k, a, b, c, extra)
  local MAXI = 2 ^ 53 -- no number may exceed it
  if extra ~= nil or not a or a % 1 ~= 0 or a < 1 or a > MAXI then return false end
  if k == 'f' then return b == nil end
  if not (b and c and b % 1 == 0 and c % 1 == 0 and b >= 1 and c >= 0 and b <= MAXI and c <= MAXI) then
    return false
  end
  if k == 'g' or k == 't' or k == 'l' then return c >= 1 and c * b + a <= MAXI end
  return (k == 'w' or k == 'c') and c < a and (k == 'w' or a * b <= MAXI)
end

-- fast runs op on the subject at key under a plain policy: kind k, numbers a, b, c, written pol.
-- The key of a plain policy is a string: pol, a zero byte, and the leaf's state (see load below),
-- read in one GET (or given as got, from an MGET) and written in one SET with its TTL. If the key
-- holds that policy or nothing, fast returns the decision, as the general engine would;
-- otherwise (a hash, another policy, a state it cannot trust), it returns nil to leave the check
-- to the general engine.
local function fast(key, op, cost, now, ttl, pol, k, a, b, c, got)
  local MAXI = 2 ^ 53 -- no number may exceed it
  local NEVER, fmod, max, sunpack = math.huge, math.fmod, math.max, struct.unpack
  local s = got
  if not s then
    s = redis.pcall('GET', key)
    if type(s) == 'table' then return nil end -- not a string
  end
  local fresh, n = not s, #pol
  if op == 'p' then cost = 1 end
  local ok, from, rem, full, out = false, NEVER, 0, now, nil
  local lim = c
  if k == 'g' then -- the commonest: inline, with no function but fmod
    local N, P, size = a, b, c
    local F = size * P
    local lr = fmod(F, N)
    local lq = (F - lr) / N -- the TAT may run lq + lr/N µs ahead
    local q, r, last = 0, 0, 0
    if not fresh then
      if #s ~= n + 25 or s:byte(n + 1) ~= 0 then return nil end
      local p
      p, q, r, last = sunpack('<sddd', s)
      if p ~= pol then return nil end
      if not (q % 1 == 0 and r % 1 == 0 and last % 1 == 0 and q >= 0 and r >= 0 and last >= 0 and q <= MAXI and
            r < N and last <= MAXI) or q - last > lq or (q - last == lq and r > lr) then
        return nil
      end
    end
    local at = max(now, last)
    if cost <= size then
      local bq, br = q, r
      if not (bq > at or (bq == at and br > 0)) then bq, br = at, 0 end
      local sc = cost * P
      local m = fmod(sc, N)
      local t = br + m
      local nr = fmod(t, N)
      local nq = bq + (sc - m) / N + (t - nr) / N
      if nq - at < lq or (nq - at == lq and nr <= lr) then
        ok = true
        if op == 'a' then
          q, r, last = nq, nr, at
          out = struct.pack('<sddd', pol, q, r, last)
        end
      else
        local back = (size - cost) * P
        local br2 = fmod(back, N)
        local fq, fr = q - (back - br2) / N, r - br2
        if fr < 0 then fq, fr = fq - 1, fr + N end
        if fr > 0 then fq = fq + 1 end
        from = fq
      end
    end
    if not (q > at or (q == at and r > 0)) then
      rem, full = size, at
    else
      full = q
      if r > 0 then full = full + 1 end
      local x = (q - at) * N + r -- the debt, in 1/N µs: rem = size - ceil(x/P)
      local m = fmod(x, P)
      rem = size - (x - m) / P
      if m > 0 then rem = rem - 1 end
    end
    if ok and op == 'a' then -- write: the TTL is the time until full, in ms rounded up, at least ttl
      local ms = full - now
      local m = fmod(ms, 1000)
      ms = (ms - m) / 1000
      if m > 0 then ms = ms + 1 end
      redis.call('SET', key, out, 'PX', max(ttl, ms)) -- an integer below 2^53: sent exactly
      return struct.pack('<dddddd', 1, rem, lim, now, full, now)
    end
    if ok then from = now end
    if from == NEVER then from = -1 end
    return struct.pack('<dddddd', ok and 1 or 0, rem, lim, from, full, now)
  end

  local function fdiv(x, y) return (x - fmod(x, y)) / y end

  local function cdiv(x, y)
    local r = fmod(x, y)
    local q = (x - r) / y
    if r > 0 then q = q + 1 end
    return q
  end

  local function int(x, lo, hi) return x % 1 == 0 and x >= lo and x <= hi end

  if k == 't' or k == 'l' then
    local N, P, size = a, b, c
    local F = size * P
    local x, last = 0, 0 -- tokens (t) or water (l), scaled by P
    if k == 't' then x = F end
    if not fresh then
      if #s ~= n + 17 or s:byte(n + 1) ~= 0 then return nil end
      local p
      p, x, last = sunpack('<sdd', s)
      if p ~= pol then return nil end
      if not (int(x, 0, F) and int(last, 0, MAXI)) then return nil end
    end
    local at = max(now, last)
    if k == 't' then
      local have = F
      if at - last < cdiv(F - x, N) then have = x + (at - last) * N end
      local want = cost * P
      if cost <= size then
        if have >= want then
          ok = true
          if op == 'a' then have = have - want end
        else
          from = at + cdiv(want - have, N)
        end
      end
      x, rem, full = have, fdiv(have, P), at + cdiv(F - have, N)
    else
      local lvl = 0
      if at - last < cdiv(x, N) then lvl = x - (at - last) * N end
      if cost <= size then
        local over = lvl + cost * P - F
        if over > 0 then
          from = at + cdiv(over, N)
        else
          ok = true
          if op == 'a' then lvl = lvl + cost * P end
        end
      end
      x, rem, full = lvl, fdiv(F - lvl, P), at + cdiv(lvl, N)
    end
    if ok and op == 'a' then out = struct.pack('<sdd', pol, x, at) end
  elseif k == 'f' then
    local x = a
    lim = a
    if not fresh then
      if #s ~= n + 9 or s:byte(n + 1) ~= 0 then return nil end
      local p
      p, x = sunpack('<sd', s)
      if p ~= pol then return nil end
      if not int(x, 0, a) then return nil end
    end
    if cost <= x then
      ok = true
      if op == 'a' then
        x = x - cost
        out = struct.pack('<sd', pol, x)
      end
    end
    rem = x
    if x < a then full = NEVER end
  else -- w, c: windows of width W aligned on O
    local W, size, O = a, b, c
    lim = size
    local ws, wp, wc, last = 0, 0, 0, 0
    if not fresh then
      if #s ~= n + 33 or s:byte(n + 1) ~= 0 then return nil end
      local p
      p, ws, wp, wc, last = sunpack('<sdddd', s)
      if p ~= pol then return nil end
      if not (int(ws, -MAXI, MAXI) and int(wp, 0, size) and int(wc, 0, size) and int(last, 0, MAXI)) or
          (k == 'w' and wp ~= 0) then
        return nil
      end
      if wp + wc > 0 then
        local m = fmod(ws - O, W)
        if m < 0 then m = m + W end
        if m ~= 0 or ws > last then return nil end
      end
    end
    local at = max(now, last)
    local m = fmod(at - O, W)
    if m < 0 then m = m + W end
    local st = at - m
    local prev, cur = 0, 0
    if st == ws then
      prev, cur = wp, wc
    elseif k == 'c' and ws < st and st - ws == W then
      prev = wc
    end
    if cost <= size then
      local room = size - cur - cost
      if k == 'w' then
        if room < 0 then from = st + W else ok = true end
      elseif room >= 0 and prev * (W - (at - st)) <= room * W then
        ok = true
      else
        from = nil
        if room >= 0 and prev > room then -- the least elapsed e with prev·(W−e) ≤ room·W
          local e = W - fdiv(room * W, prev)
          if e < W then from = st + e end
        elseif room >= 0 then
          from = st
        end
        if not from then
          local e = 0
          if cur > size - cost then e = W - fdiv((size - cost) * W, cur) end
          from = st + W + e
        end
      end
      if ok and op == 'a' then
        cur = cur + cost
        if k == 'w' then prev = 0 end
        out = struct.pack('<sdddd', pol, st, prev, cur, at)
      end
    end
    rem, full = size - cur, at
    if k == 'c' then
      rem = (size - cur) * W - prev * (W - (at - st))
      if rem > 0 then rem = fdiv(rem, W) else rem = 0 end
      if cur > 0 then full = st + 2 * W elseif prev > 0 then full = st + W end
    elseif cur > 0 then
      full = st + W
    end
  end
  local flag = 0
  if ok then
    flag, from = 1, now
    if op == 'a' then
      local u = full
      if full == NEVER then u = MAXI - 1 end -- a spent finite bucket: kept until 2255
      redis.call('SET', key, out, 'PX', max(ttl, cdiv(max(0, u - now), 1000))) -- below 2^53: exact
    end
  end
  if from == NEVER then from = -1 end
  if full == NEVER then full = -1 end
  return struct.pack('<dddddd', flag, rem, lim, from, full, now)
end

-- engine defines the general engine, and returns its check function and its policy parser.
local function engine()
  local NEVER = math.huge
  local MAXI = 2 ^ 53 -- no number may exceed it
  local fmod, floor, min, max, tonumber, type = math.fmod, math.floor, math.min, math.max, tonumber, type
  local spack, sunpack, sfmt = struct.pack, struct.unpack, string.format
  local rcall, rpcall = redis.call, redis.pcall
  local key -- the key of the check that runs

  local function fdiv(a, b) return (a - fmod(a, b)) / b end

  local function cdiv(a, b)
    local r = fmod(a, b)
    local q = (a - r) / b
    if r > 0 then q = q + 1 end
    return q
  end

  local function int(x, lo, hi) return x and x == floor(x) and x >= lo and x <= hi end

  local function corrupt(what)
    error({ err = 'NUMERUS_CORRUPT ' .. key .. ': ' .. what })
  end

  -- offset returns the position of at within its period of length w aligned on origin, in [0, w).
  local function offset(at, origin, w)
    local m = fmod(at - origin, w)
    if m < 0 then m = m + w end
    return m
  end

  -- Policies. A leaf is {k, i, size} and its kind's numbers: buckets (g gcra, t token, l leaky)
  -- have the reduced rate N per P µs, full = size·P; windows (w fixed, c counter) have width W and
  -- origin O; logs (s sliding, b buckets) have width W and quantum Q. f is the finite bucket.

  local function leafOf(k, i, a, b, c)
    local l = { a, b, c, k = k, i = i, N = 0, P = 0, size = 0, full = 0, W = 0, O = 0, Q = 1 }
    if k == 'g' or k == 't' or k == 'l' then
      l.N, l.P, l.size, l.full = a, b, c, c * b
      if a < 1 or b < 1 or c < 1 or l.full + a > MAXI then return nil end
    elseif k == 'f' then
      l.size = a
      if a < 1 then return nil end
    elseif k == 'w' or k == 'c' then
      l.W, l.size, l.O = a, b, c
      if a < 1 or b < 1 or c >= a or (k == 'c' and b * a > MAXI) then return nil end
    else
      l.W, l.size, l.Q = a, b, c or 1
      if a < 1 or b < 1 or l.Q < 1 or fmod(a, l.Q) ~= 0 then return nil end
    end
    return l
  end

  -- node reads the policy node at toks[i]: it returns the node and the index after it, or nil.
  local function node(toks, i, leaves, depth)
    local k = toks[i]
    if k == '&' or k == '|' then
      local n, j = tonumber(toks[i + 1]), i + 2
      if depth >= 32 or not int(n, 1, 1000) then return nil end
      local nd = { k = k, c = {} }
      for c = 1, n do
        nd.c[c], j = node(toks, j, leaves, depth + 1)
        if not j then return nil end
      end
      return nd, j
    end
    local m = 3
    if k == 'f' then
      m = 1
    elseif k == 's' then
      m = 2
    elseif not (k == 'g' or k == 't' or k == 'l' or k == 'w' or k == 'c' or k == 'b') then
      return nil
    end
    local a, b, c = tonumber(toks[i + 1]), tonumber(toks[i + 2]), tonumber(toks[i + 3])
    if not (int(a, 0, MAXI) and (m < 2 or int(b, 0, MAXI)) and (m < 3 or int(c, 0, MAXI))) then return nil end
    if m < 3 then c = nil end
    if m < 2 then b = nil end
    local l = leafOf(k, #leaves + 1, a, b, c)
    if not l then return nil end
    leaves[l.i] = l
    return l, i + m + 1
  end

  -- parse reads the policy at toks[first]: its root, its leaves and the index after it.
  local function parse(toks, first)
    local leaves = {}
    local root, j = node(toks, first, leaves, 0)
    if not j then return nil end
    return root, leaves, j
  end

  -- States: one table per leaf. Every kind but f keeps last, the latest instant it admitted; a log
  -- keeps head h and tail t indexes, the cumulative count before its head, and its newest entry
  -- (index t-1) inline as nat and ncum; older entries are fields, or in mem for a state built in
  -- memory, or in pushed for the one a debit just pushed. A state is stored as little-endian
  -- doubles (struct.pack), which hold every integer up to 2^53 exactly and cost far less to read
  -- and write than decimal text.

  local function load(l, s)
    if type(s) ~= 'string' then return nil end
    local k, st = l.k, nil
    if k == 'g' then
      if #s ~= 24 then return nil end
      local q, r, last = sunpack('<ddd', s)
      st = { q = q, r = r, last = last }
      if not (int(q, 0, MAXI) and int(r, 0, l.N - 1) and int(last, 0, MAXI)) then return nil end
      local d, lq = q - last, fdiv(l.full, l.N)
      if d > lq or (d == lq and r > fmod(l.full, l.N)) then return nil end
    elseif k == 't' or k == 'l' then
      if #s ~= 16 then return nil end
      local a, last = sunpack('<dd', s)
      st = { a = a, last = last }
      if not (int(a, 0, l.full) and int(last, 0, MAXI)) then return nil end
    elseif k == 'f' then
      if #s ~= 8 then return nil end
      st = { a = sunpack('<d', s), last = 0 }
      if not int(st.a, 0, l.size) then return nil end
    elseif k == 'w' or k == 'c' then
      if #s ~= 32 then return nil end
      local a, p, c, last = sunpack('<dddd', s)
      st = { s = a, p = p, c = c, last = last }
      if not (int(a, -MAXI, MAXI) and int(p, 0, l.size) and int(c, 0, l.size) and int(last, 0, MAXI)) or
          (k == 'w' and p ~= 0) or
          (p + c > 0 and (offset(a, l.O, l.W) ~= 0 or a > last)) then
        return nil
      end
    else
      if #s ~= 48 then return nil end
      local h, t, base, last, nat, ncum = sunpack('<dddddd', s)
      st = { h = h, t = t, base = base, last = last, nat = nat, ncum = ncum }
      if not (int(h, 0, MAXI) and int(t, h, MAXI) and int(base, 0, MAXI) and int(last, 0, MAXI) and
            int(ncum, base, base + l.size) and int(nat, 0, last)) then
        return nil
      end
    end
    return st
  end

  local function dump(l, st)
    local k = l.k
    if k == 'g' then return spack('<ddd', st.q, st.r, st.last) end
    if k == 't' or k == 'l' then return spack('<dd', st.a, st.last) end
    if k == 'f' then return spack('<d', st.a) end
    if k == 'w' or k == 'c' then return spack('<dddd', st.s, st.p, st.c, st.last) end
    return spack('<dddddd', st.h, st.t, st.base, st.last, st.nat, st.ncum)
  end

  -- fresh returns the state of a leaf nobody has debited: buckets full, windows and logs empty.
  local function fresh(l)
    local k = l.k
    if k == 'g' then return { q = 0, r = 0, last = 0 } end
    if k == 't' then return { a = l.full, last = 0 } end
    if k == 'l' then return { a = 0, last = 0 } end
    if k == 'f' then return { a = l.size, last = 0 } end
    if k == 'w' or k == 'c' then return { s = 0, p = 0, c = 0, last = 0 } end
    return { h = 0, t = 0, base = 0, last = 0, nat = 0, ncum = 0 }
  end

  -- Logs and trees: their helpers are defined by needLogs and needTrees, only for a policy that
  -- has a log or is a tree (a policy change needs both).
  local cache, entry, expire, tdebit, tstatus, convert

  -- Leaves: debit and status mirror the kernel's Debit and Status of each kind.

  -- decayed returns the least elapsed e in [0, W] with weight·(W−e) ≤ room·W (sliding counter).
  local function decayed(W, weight, room)
    if weight == 0 or room >= weight then return 0 end
    return W - fdiv(room * W, weight)
  end

  local function debit(l, st, at, cost)
    local k = l.k
    if k == 'f' then
      if cost > st.a then return false, NEVER end
      return true, at, { a = st.a - cost, last = 0 }
    end
    if cost > l.size then return false, NEVER end
    at = max(at, st.last)
    if k == 'g' then
      local N, bq, br = l.N, st.q, st.r
      if not (bq > at or (bq == at and br > 0)) then bq, br = at, 0 end
      local s = cost * l.P
      local t = br + fmod(s, N)
      local q, r = bq + fdiv(s, N) + fdiv(t, N), fmod(t, N)
      local d, lq = q - at, fdiv(l.full, N)
      if d < lq or (d == lq and r <= fmod(l.full, N)) then return true, at, { q = q, r = r, last = at } end
      local back = (l.size - cost) * l.P
      q, r = st.q - fdiv(back, N), st.r - fmod(back, N)
      if r < 0 then q, r = q - 1, r + N end
      if r > 0 then q = q + 1 end
      return false, q
    elseif k == 't' then
      local el, lim = at - st.last, l.full - st.a
      local have, want = l.full, cost * l.P
      if el < cdiv(lim, l.N) then have = st.a + el * l.N end
      if have >= want then return true, at, { a = have - want, last = at } end
      return false, at + cdiv(want - have, l.N)
    elseif k == 'l' then
      local el, lvl = at - st.last, 0
      if el < cdiv(st.a, l.N) then lvl = st.a - el * l.N end
      local over = lvl + cost * l.P - l.full
      if over > 0 then return false, at + cdiv(over, l.N) end
      return true, at, { a = lvl + cost * l.P, last = at }
    elseif k == 'w' or k == 'c' then
      local s = at - offset(at, l.O, l.W)
      local prev, cur = 0, 0
      if s == st.s then
        prev, cur = st.p, st.c
      elseif k == 'c' and st.s < s and s - st.s == l.W then
        prev = st.c
      end
      local room = l.size - cur - cost
      if k == 'w' then
        if room < 0 then return false, s + l.W end
        return true, at, { s = s, p = 0, c = cur + cost, last = at }
      end
      if room >= 0 and prev * (l.W - (at - s)) <= room * l.W then
        return true, at, { s = s, p = prev, c = cur + cost, last = at }
      end
      if room >= 0 then
        local e = decayed(l.W, prev, room)
        if e < l.W then return false, s + e end
      end
      return false, s + l.W + decayed(l.W, cur, l.size - cost)
    end
    local h, base, count = expire(l, st, at)
    local over = count + cost - l.size
    if over > 0 then
      local lo, hi = h, st.t - 1
      while lo < hi do
        local mid = floor((lo + hi) / 2)
        if select(2, entry(l, st, mid)) - base >= over then hi = mid else lo = mid + 1 end
      end
      return false, entry(l, st, lo) + l.W
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
  end

  -- status returns a leaf's limit, its whole tokens left and the instant it is full again.
  local function status(l, st, at)
    local k = l.k
    if k == 'f' then
      if st.a == l.size then return l.size, st.a, at end
      return l.size, st.a, NEVER
    end
    at = max(at, st.last)
    if k == 'g' then
      if not (st.q > at or (st.q == at and st.r > 0)) then return l.size, l.size, at end
      local full = st.q
      if st.r > 0 then full = full + 1 end
      return l.size, l.size - cdiv((st.q - at) * l.N + st.r, l.P), full
    elseif k == 't' then
      local have = l.full
      if at - st.last < cdiv(l.full - st.a, l.N) then have = st.a + (at - st.last) * l.N end
      return l.size, fdiv(have, l.P), at + cdiv(l.full - have, l.N)
    elseif k == 'l' then
      local lvl = 0
      if at - st.last < cdiv(st.a, l.N) then lvl = st.a - (at - st.last) * l.N end
      return l.size, fdiv(l.full - lvl, l.P), at + cdiv(lvl, l.N)
    elseif k == 'w' or k == 'c' then
      local s = at - offset(at, l.O, l.W)
      local prev, cur = 0, 0
      if s == st.s then
        prev, cur = st.p, st.c
      elseif k == 'c' and st.s < s and s - st.s == l.W then
        prev = st.c
      end
      local left, full = l.size - cur, at
      if k == 'c' then
        left = (l.size - cur) * l.W - prev * (l.W - (at - s))
        if left > 0 then left = fdiv(left, l.W) else left = 0 end
        if cur > 0 then full = s + 2 * l.W elseif prev > 0 then full = s + l.W end
      elseif cur > 0 then
        full = s + l.W
      end
      return l.size, left, full
    end
    local _, _, count = expire(l, st, at)
    local full = at
    if count > 0 then full = st.nat + l.W end
    return l.size, l.size - count, full
  end

  local function loadAll(leaves, vals)
    local S = {}
    for i, l in ipairs(leaves) do
      S[i] = load(l, vals[i + 1])
      if not S[i] then corrupt('state of leaf ' .. i) end
    end
    return S
  end

  local function fields(leaves)
    local f = { 'p' }
    for i = 1, #leaves do f[i + 1] = tostring(i) end
    return f
  end

  local function needLogs()
    if entry then return end
    entry = function(l, st, n)
      if n == st.t - 1 then return st.nat, st.ncum end
      if st.pushed and n == st.t - 2 then return st.pushed[1], st.pushed[2] end
      if st.mem then return st.mem[n][1], st.mem[n][2] end
      local f = l.i .. '.' .. sfmt('%d', n)
      local e = cache[f]
      if not e then
        local s = rcall('HGET', key, f)
        if type(s) ~= 'string' or #s ~= 16 then corrupt('log entry ' .. f) end
        e = { sunpack('<dd', s) }
        if not (int(e[1], 0, st.nat) and int(e[2], 0, st.ncum)) then corrupt('log entry ' .. f) end
        cache[f] = e
      end
      return e[1], e[2]
    end

    -- expire returns the head, base and count of a log's live entries at at: the entries more than
    -- a width old are dropped, found by galloping from the head then bisecting, so dropping k of
    -- them reads O(log k) fields.
    expire = function(l, st, at)
      if st.t == st.h then return st.h, st.base, 0 end
      local cut = at - l.W
      if st.nat <= cut then return st.t, max(st.base, st.ncum), 0 end
      local lo, hi = st.h, st.t - 1
      if entry(l, st, lo) <= cut then -- some expired: gallop from the head, then bisect
        local step = 1
        while lo + step < hi and entry(l, st, lo + step) <= cut do lo, step = lo + step, step * 2 end
        hi = min(hi, lo + step)
        lo = lo + 1
        while lo < hi do
          local mid = floor((lo + hi) / 2)
          if entry(l, st, mid) > cut then hi = mid else lo = mid + 1 end
        end
      end
      local base = st.base
      if lo > st.h then base = max(base, select(2, entry(l, st, lo - 1))) end
      return lo, base, st.ncum - base
    end
  end

  local function needTrees()
    if tdebit then return end
    -- tdebit mirrors numerus's DebitN over And and Or: whether the tree admits cost at at, the
    -- answer (at itself on an admission, as numerus.single answers) and the new states of the
    -- leaves it charged. An And charges every child or none; an Or, every child that admits.

    -- search moves from on until every child of an And admits cost there, as numerus.allOf does.
    local search = function(nd, S, from, cost)
      for _ = 1, 64 do -- numerus.MaxSearch
        local moved = from
        for _, c in ipairs(nd.c) do
          local ok, f = tdebit(c, S, from, cost)
          if not ok then moved = max(moved, f) end
        end
        if moved == NEVER or not (moved > from) then return moved end
        from = moved
      end
      return NEVER
    end

    tdebit = function(nd, S, at, cost)
      if nd.i then
        local ok, from, st = debit(nd, S[nd.i], at, cost)
        if ok then return true, at, { [nd.i] = st } end
        return false, from
      end
      if nd.k == '&' then
        local from, ok, changes = at, true, {}
        for _, c in ipairs(nd.c) do
          local cok, f, ch = tdebit(c, S, at, cost)
          if cok then
            for i, st in pairs(ch) do changes[i] = st end
          else
            from, ok = max(from, f), false
            if from == NEVER then return false, NEVER end
          end
        end
        if ok then return true, at, changes end
        return false, search(nd, S, from, cost)
      end
      local from, changes = NEVER, nil
      for _, c in ipairs(nd.c) do
        local cok, f, ch = tdebit(c, S, at, cost)
        if cok then
          changes = changes or {}
          for i, st in pairs(ch) do changes[i] = st end
        end
        from = min(from, f)
      end
      if changes then return true, at, changes end
      return false, from
    end

    -- tstatus mirrors numerus's Status: an And has the least limit and remaining, an Or the most, and
    -- both are full when every child is.
    tstatus = function(nd, S, at)
      if nd.i then return status(nd, S[nd.i], at) end
      local and_ = nd.k == '&'
      local lim, rem, full = 0, 0, at
      if and_ then lim, rem = NEVER, NEVER end
      for _, c in ipairs(nd.c) do
        local cl, cr, cf = tstatus(c, S, at)
        if and_ then lim, rem = min(lim, cl), min(rem, cr) else lim, rem = max(lim, cl), max(rem, cr) end
        full = max(full, cf)
      end
      return lim, rem, full
    end

    -- convert carries the states kept under an old policy over to a new one, as keyed's memory store
    -- and typed.Policy.Continue do. A subject full again under its old policy starts afresh (its key
    -- could as well have expired). Otherwise, at the latest of now and every instant the old states
    -- hold: if the trees have the same shape, a leaf identical to the old one at its place keeps its
    -- state, and any other leaf continues from the old leaf at its place; if not, every leaf continues
    -- from the most used old leaf (the least remaining, the largest count). A leaf that continues
    -- holds the lesser of the tokens remaining and its capacity (for a window, its limit less the
    -- count used), all of them counted as used at that instant. So nothing is minted: a larger
    -- capacity does not refill, and alternating policies never gives back more than was left. It is
    -- defined on the only path that needs it.
    convert = function(old, root, leaves, now, vals)
      local toks = {}
      for w in string.gmatch(old, '%S+') do toks[#toks + 1] = w end
      local root0, leaves0 = parse(toks, 1)
      if not root0 or (vals and not root0.i) then corrupt('unreadable policy') end
      local S0 = loadAll(leaves0, vals or rcall('HMGET', key, unpack(fields(leaves0))))
      local S = {}
      if select(3, tstatus(root0, S0, now)) <= now then
        for i, l in ipairs(leaves) do S[i] = fresh(l) end
        return S
      end
      local function shape(nd)
        if nd.i then return '.' end
        local s = nd.k .. #nd.c
        for _, c in ipairs(nd.c) do s = s .. ' ' .. shape(c) end
        return s
      end
      local at = now
      for i in ipairs(leaves0) do at = max(at, S0[i].last) end
      local same, rem, used = shape(root0) == shape(root), NEVER, 0
      if not same then
        for i, lo in ipairs(leaves0) do
          local lim, r = status(lo, S0[i], at)
          rem, used = min(rem, r), max(used, lim - r)
        end
      end
      for i, l in ipairs(leaves) do
        local lo, so = leaves0[i], S0[i]
        if same and lo.k == l.k and lo[1] == l[1] and lo[2] == l[2] and lo[3] == l[3] then
          S[i] = so
          if so.ncum then -- a log: the hash is rewritten, so its entries move to memory
            S[i] = { h = so.h, t = so.t, base = so.base, last = so.last, nat = so.nat, ncum = so.ncum, mem = {} }
            for n = so.h, so.t - 2 do S[i].mem[n] = { entry(l, so, n) } end
          end
        else
          local r, u = rem, used
          if same then
            local lim
            lim, r = status(lo, so, at)
            u = lim - r
          end
          local k, c = l.k, nil
          if k == 'g' or k == 't' or k == 'l' or k == 'f' then
            c = max(min(r, l.size), 0)
          else
            c = max(min(r, l.size - min(u, l.size)), 0)
          end
          local st = fresh(l) -- a fresh leaf charged what it does not hold
          if c < l.size then st = select(3, debit(l, st, at, l.size - c)) end
          if k ~= 'f' then st.last = at end
          if st.ncum then st.mem = {} end
          S[i] = st
        end
      end
      return S
    end
  end

  -- check runs op (acquire or peek) on the subject at key name: it reads its key (a hash, or the
  -- string of a plain policy), decides at now, writes an admission (setting the TTL), and returns
  -- the decision.
  local function check(name, op, cost, now, ttl, pol, root, leaves)
    key = name
    local vals
    if root.i then
      vals = rpcall('HMGET', key, 'p', '1')
    else
      vals = rpcall('HMGET', key, unpack(fields(leaves)))
    end
    local plainOld -- the key is a string: written under a plain policy
    if vals.err then
      local v = rpcall('GET', key)
      if type(v) ~= 'string' then corrupt('neither a hash nor a string: ' .. vals.err) end
      local i = string.find(v, '\0', 1, true)
      if not i then corrupt('no policy') end
      vals, plainOld = { v:sub(1, i - 1), v:sub(i + 1) }, true
    end
    local changed = vals[1] and vals[1] ~= pol
    local hasLog = changed
    for _, l in ipairs(leaves) do hasLog = hasLog or l.k == 's' or l.k == 'b' end
    if hasLog then
      needLogs()
      cache = {}
    end
    if changed or not root.i then needTrees() end

    local S, all, rewrite
    if not changed and vals[1] then
      S = loadAll(leaves, vals)
    elseif changed then
      S, all, rewrite = convert(vals[1], root, leaves, now, plainOld and vals), true, true
    else
      for i = 2, #leaves + 1 do
        if vals[i] then corrupt('no policy field') end
      end
      S, all = {}, true
      for i, l in ipairs(leaves) do S[i] = fresh(l) end
    end

    local S0, ok, from, changes = S, nil, nil, nil
    if op == 'p' then cost = 1 end
    if root.i then
      local st
      ok, from, st = debit(root, S[1], now, cost)
      if ok then from, changes = now, { st } end
    else
      ok, from, changes = tdebit(root, S, now, cost)
    end
    if ok and op == 'a' then
      S = {}
      for i = 1, #leaves do S[i] = changes[i] or S0[i] end
    end
    local lim, rem, full
    if root.i then lim, rem, full = status(root, S[1], now) else lim, rem, full = tstatus(root, S, now) end

    if op == 'a' and ok then
      local until_ = full
      if full == NEVER then until_ = MAXI - 1 end -- a spent finite bucket: kept until 2255
      local ms = sfmt('%d', max(ttl, cdiv(max(0, until_ - now), 1000)))
      if root.i and root.k ~= 's' and root.k ~= 'b' then -- a plain policy: a string, as fast writes it
        rcall('SET', key, pol .. '\0' .. dump(root, S[1]), 'PX', ms)
      else
        if rewrite or plainOld then rcall('DEL', key) end
        local args, dels = { 'HSET', key }, { 'HDEL', key }
        if all or plainOld then args[3], args[4] = 'p', pol end
        for i, l in ipairs(leaves) do
          local st = S[i]
          if all or plainOld or changes[i] then
            if st.ncum then -- a log: drop the entries that expired, store the one pushed
              local o = S0[i]
              if not rewrite then
                for n = o.h, min(st.h, o.t - 1) - 1 do dels[#dels + 1] = i .. '.' .. sfmt('%d', n) end
              end
              if st.base >= 2 ^ 50 and st.t > st.h then -- rebase the cumulative counts
                local mem = {}
                for n = st.h, st.t - 2 do
                  local a, c = entry(l, st, n)
                  mem[n] = { a, c - st.base }
                end
                st = { h = st.h, t = st.t, base = 0, last = st.last, nat = st.nat, ncum = st.ncum - st.base, mem = mem }
              end
              if st.mem then
                for n = st.h, st.t - 2 do
                  args[#args + 1] = i .. '.' .. sfmt('%d', n)
                  args[#args + 1] = spack('<dd', entry(l, st, n))
                end
              elseif st.pushed and st.h <= st.t - 2 then
                args[#args + 1] = i .. '.' .. sfmt('%d', st.t - 2)
                args[#args + 1] = spack('<dd', st.pushed[1], st.pushed[2])
              end
            end
            args[#args + 1] = tostring(i)
            args[#args + 1] = dump(l, st)
          end
        end
        if #dels > 2 then rcall(unpack(dels)) end
        for i = 3, #args, 4000 do
          rcall('HSET', key, unpack(args, i, min(i + 3999, #args)))
        end
        rcall('PEXPIRE', key, ms)
      end
    end

    if from == NEVER then from = -1 end
    if full == NEVER then full = -1 end
    local flag = 0
    if ok then flag = 1 end
    return spack('<dddddd', flag, rem, lim, from, full, now)
  end

  return check, parse
end

-- Main. Its locals are few, and the functions above have none of its locals as upvalues: making
-- a closure costs one binding per upvalue, on every call.

local mode = ARGV[1]
if mode == 'r' then
  redis.call('DEL', KEYS[1])
  return 1
end

local function bad(what)
  return redis.error_reply('NUMERUS_ARGS bad ' .. what .. ' for ' .. tostring(KEYS[1]))
end

local function valid(x, lo) return x and x % 1 == 0 and x >= lo and x <= 2 ^ 53 end

if mode ~= 'B' then
  local cost, now, ttl = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
  if now == '' then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  else
    now = tonumber(now)
  end
  if not (cost and now and ttl and cost % 1 == 0 and now % 1 == 0 and ttl % 1 == 0 and cost >= 1 and now >= 0 and
        ttl >= 1 and cost <= 2 ^ 53 and now <= 2 ^ 53 and ttl <= 2 ^ 53) then
    return bad('arguments')
  end
  local k, a, b, c = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
  if plain(k, a, b, c, ARGV[10]) then
    local reply = fast(KEYS[1], mode, cost, now, ttl, ARGV[5], k, a, b, c)
    if reply then return reply end
  end
  local check, parse = engine()
  local root, leaves, j = parse(ARGV, 6)
  if not root or ARGV[j] ~= nil then return bad('policy') end
  return check(KEYS[1], mode, cost, now, ttl, ARGV[5], root, leaves)
end

-- A batch: ARGV 'B', ttl, cost, time, pol, the tokens, then, unless every key has that cost and
-- time, each key's cost and time.
local ttl, pol = tonumber(ARGV[2]), ARGV[5]
local check, parse = engine()
local root, leaves, j = parse(ARGV, 6)
local each = #ARGV == j - 1 + 2 * #KEYS
if not root or not (each or #ARGV == j - 1) then return bad('policy') end
if not valid(ttl, 1) then return bad('arguments') end
local k, a, b, c, got -- the fast path's policy, if plain, and its keys' strings
if root.i and plain(root.k, root[1], root[2], root[3]) then
  k, a, b, c = root.k, root[1], root[2], root[3]
  got = redis.call('MGET', unpack(KEYS)) -- false for a key that is absent or not a string
end
local out, failed, seen, server = {}, {}, {}, nil
local function fail(n, e) -- the n-th check failed with the error reply e
  out[n] = '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
  failed[#failed + 1] = n
  failed[#failed + 1] = e
end
local cost, now = tonumber(ARGV[3]), ARGV[4]
for n, name in ipairs(KEYS) do
  if each then
    cost, now = tonumber(ARGV[j]), ARGV[j + 1]
    j = j + 2
  end
  if now == '' then
    if not server then
      local t = redis.call('TIME')
      server = tonumber(t[1]) * 1000000 + tonumber(t[2])
    end
    now = server
  else
    now = tonumber(now)
  end
  if not (valid(cost, 1) and valid(now, 0)) then
    fail(n, { err = 'NUMERUS_ARGS bad arguments for ' .. name })
  else
    local done, res = true, nil
    if k then
      local pre = got and not seen[name] and got[n] or nil -- a key checked before is read again
      seen[name] = true
      done, res = pcall(fast, name, 'a', cost, now, ttl, pol, k, a, b, c, pre)
    end
    if done and not res then done, res = pcall(check, name, 'a', cost, now, ttl, pol, root, leaves) end
    if done then
      out[n] = res
    elseif type(res) == 'table' and res.err then
      fail(n, res)
    elseif type(res) == 'string' then
      fail(n, { err = res })
    else
      fail(n, { err = 'NUMERUS_SCRIPT ' .. name .. ': ' .. tostring(res) })
    end
  end
end
failed[#failed + 1] = table.concat(out)
return failed
