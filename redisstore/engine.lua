-- The general engine of the numerus redisstore script: see fast.lua.

-- engine defines the general engine, and returns its check function and its policy parser.
local function engine()
  local NEVER = math.huge
  local MAXI = 2 ^ 53 -- no number may exceed it
  local MAXT = 2 ^ 52 -- no instant the store writes exceeds it (2112): past it, sums are not exact
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
      if depth >= MAXDEPTH or not int(n, 1, MAXKIDS) then return nil end
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
    if #leaves >= MAXLEAVES then return nil end
    local l = leafOf(k, #leaves + 1, a, b, c)
    if not l then return nil end
    leaves[l.i] = l
    return l, i + m + 1
  end

  -- parse reads the policy written text (its tokens joined by spaces): its root and its leaves, or
  -- nil.
  local function parse(text)
    local toks, leaves = {}, {}
    for w in string.gmatch(text, '%S+') do toks[#toks + 1] = w end
    local root, j = node(toks, 1, leaves, 0)
    if j ~= #toks + 1 then return nil end
    return root, leaves
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
      if not (int(q, 0, MAXI) and int(r, 0, l.N - 1) and int(last, 0, MAXT)) then return nil end
      local d, lq = q - last, fdiv(l.full, l.N)
      if d > lq or (d == lq and r > fmod(l.full, l.N)) then return nil end
    elseif k == 't' or k == 'l' then
      if #s ~= 16 then return nil end
      local a, last = sunpack('<dd', s)
      st = { a = a, last = last }
      if not (int(a, 0, l.full) and int(last, 0, MAXT)) then return nil end
    elseif k == 'f' then
      if #s ~= 8 then return nil end
      st = { a = sunpack('<d', s), last = 0 }
      if not int(st.a, 0, l.size) then return nil end
    elseif k == 'w' or k == 'c' then
      if #s ~= 32 then return nil end
      local a, p, c, last = sunpack('<dddd', s)
      st = { s = a, p = p, c = c, last = last }
      if not (int(a, -MAXI, MAXI) and int(p, 0, l.size) and int(c, 0, l.size) and int(last, 0, MAXT)) or
          (k == 'w' and p ~= 0) or
          (p + c > 0 and (offset(a, l.O, l.W) ~= 0 or a > last)) then
        return nil
      end
    else
      if #s ~= 48 then return nil end
      local h, t, base, last, nat, ncum = sunpack('<dddddd', s)
      st = { h = h, t = t, base = base, last = last, nat = nat, ncum = ncum }
      if not (int(h, 0, MAXI) and int(t, h, MAXI) and int(base, 0, MAXI) and int(last, 0, MAXT) and
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
      local over = lvl - (l.full - cost * l.P) -- lvl + cost·P may pass 2^53: not exact
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
    local over = cost - (l.size - count) -- count + cost may pass 2^53: not exact
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

  -- advance brings a leaf's state to at without debiting it, as the kernel's Advance does: the
  -- state it returns decides alike at at and later, and counts an earlier instant as at. An Or
  -- that admits brings the leaves of its other children to its instant, so that every leaf of a
  -- tree counts the tree's latest instant as its own.
  local function advance(l, st, at)
    local k = l.k
    if k == 'f' or at <= st.last then return st end
    if k == 'g' then return { q = st.q, r = st.r, last = at } end
    local el = at - st.last
    if k == 't' then
      local have = l.full
      if el < cdiv(l.full - st.a, l.N) then have = st.a + el * l.N end
      return { a = have, last = at }
    elseif k == 'l' then
      local lvl = 0
      if el < cdiv(st.a, l.N) then lvl = st.a - el * l.N end
      return { a = lvl, last = at }
    elseif k == 'w' or k == 'c' then
      local s = at - offset(at, l.O, l.W)
      local prev, cur = 0, 0
      if s == st.s then
        prev, cur = st.p, st.c
      elseif k == 'c' and st.s < s and s - st.s == l.W then
        prev = st.c
      end
      return { s = s, p = prev, c = cur, last = at }
    end
    -- a log: its entries are instants, and only last moves
    return { h = st.h, t = st.t, base = st.base, last = at, nat = st.nat, ncum = st.ncum, mem = st.mem }
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

  -- CHUNK is the most words a command takes from unpack here: Lua's stack holds about 8,000, and a
  -- log may have more entries to drop at once (a policy has at most MAXLEAVES leaves).
  local CHUNK = 4000

  -- hmget reads the fields fs of the key, CHUNK at a time: their values in order, or the error of
  -- the first read that failed (a key of another type).
  local function hmget(fs)
    local vals = {}
    for i = 1, #fs, CHUNK do
      local part = rpcall('HMGET', key, unpack(fs, i, min(i + CHUNK - 1, #fs)))
      if part.err then return part end
      for j = 1, #part do vals[i + j - 1] = part[j] end
    end
    return vals
  end

  -- each runs cmd on the key with the words of t from the first on, CHUNK at a time (an even
  -- number: pairs stay together).
  local function each(cmd, t)
    for i = 1, #t, CHUNK do rcall(cmd, key, unpack(t, i, min(i + CHUNK - 1, #t))) end
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

    -- advanceAll adds to changes every leaf below nd that is not there, brought to at.
    local function advanceAll(nd, S, at, changes)
      if nd.i then
        if not changes[nd.i] and nd.k ~= 'f' then changes[nd.i] = advance(nd, S[nd.i], at) end
        return
      end
      for _, c in ipairs(nd.c) do advanceAll(c, S, at, changes) end
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
      if changes then
        advanceAll(nd, S, at, changes)
        return true, at, changes
      end
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
    -- state, and a changed one continues from the old leaf at its place when both are the only
    -- changed leaves of their kind in their trees; every other leaf continues from the most used
    -- old leaf (the least remaining, the largest count), as the old leaf at its place may be
    -- another algorithm, or another leaf of the same one. A leaf that continues holds the lesser of the
    -- tokens remaining and its capacity (for a window, its limit less the count used), all counted
    -- as used at that instant. So nothing is minted: a larger capacity does not refill, and
    -- alternating policies never gives back more than was left. It is defined on the only path
    -- that needs it.
    convert = function(old, root, leaves, now, vals)
      local root0, leaves0 = parse(old)
      if not root0 then corrupt('unreadable policy') end
      if vals and not (root0.i and root0.k ~= 's' and root0.k ~= 'b') then -- a string, kept only for a plain policy
        corrupt('a string under a policy kept in a hash')
      end
      vals = vals or hmget(fields(leaves0))
      if vals.err then corrupt('neither a hash nor a string: ' .. vals.err) end
      local S0 = loadAll(leaves0, vals)
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
      local function identical(lo, l)
        return lo and lo.k == l.k and lo[1] == l[1] and lo[2] == l[2] and lo[3] == l[3]
      end
      local kinds0, kinds = {}, {} -- how many changed leaves of each kind either tree holds
      for i, lo in ipairs(leaves0) do
        local lim, r = status(lo, S0[i], at)
        rem, used = min(rem, r), max(used, lim - r)
      end
      if same then
        for i, l in ipairs(leaves) do
          local lo = leaves0[i]
          if not identical(lo, l) then
            kinds0[lo.k], kinds[l.k] = (kinds0[lo.k] or 0) + 1, (kinds[l.k] or 0) + 1
          end
        end
      end
      for i, l in ipairs(leaves) do
        local lo, so = leaves0[i], S0[i]
        if same and identical(lo, l) then
          S[i] = so
          if so.ncum then -- a log: the hash is rewritten, so its entries move to memory
            S[i] = { h = so.h, t = so.t, base = so.base, last = so.last, nat = so.nat, ncum = so.ncum, mem = {} }
            for n = so.h, so.t - 2 do S[i].mem[n] = { entry(l, so, n) } end
          end
        else
          local r, u = rem, used
          if same and lo.k == l.k and kinds0[l.k] == 1 and kinds[l.k] == 1 then
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
  -- string of a plain policy), decides at now, writes an admission or a conversion to a new policy
  -- (setting the TTL), and returns the decision.
  local function check(name, op, cost, now, ttl, pol, root, leaves)
    key = name
    local vals
    if root.i then
      vals = rpcall('HMGET', key, 'p', '1')
    else
      vals = hmget(fields(leaves))
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
    local plain = root.i and root.k ~= 's' and root.k ~= 'b' -- kept in a string, not a hash
    if plainOld and not changed and not plain then corrupt('a string under a policy kept in a hash') end
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
      if rcall('EXISTS', key) == 1 then corrupt('a hash the store did not write') end
      S, all = {}, true
      for i, l in ipairs(leaves) do S[i] = fresh(l) end
    end

    local S0, ok, from, changes = S, nil, nil, nil
    if op == 'p' then cost = 1 end
    local at = now -- a tree decides at the latest instant any leaf holds, if now is earlier
    if root.i then
      local st
      ok, from, st = debit(root, S[1], now, cost)
      if ok then from, changes = now, { st } end
    else
      for i = 1, #leaves do at = max(at, S[i].last) end
      ok, from, changes = tdebit(root, S, at, cost)
      if ok then from = now end
    end
    if ok and op == 'a' then
      S = {}
      for i = 1, #leaves do S[i] = changes[i] or S0[i] end
    end
    local lim, rem, full
    if root.i then lim, rem, full = status(root, S[1], now) else lim, rem, full = tstatus(root, S, at) end

    -- An admission is written, and so is a conversion to a new policy, refused or by a Peek too:
    -- the old policy must not go on refilling a subject seen under the new one. Unless the carried
    -- state is full: kept, it would carry back to the old policy as full again, and start afresh
    -- there; the old state carries over as full again at any later check.
    if (op == 'a' and ok) or (rewrite and full > now) then
      local until_ = full
      if full == NEVER then until_ = MAXI - 1 end -- a spent finite bucket: kept until 2255
      local ms = sfmt('%d', max(ttl, cdiv(max(0, until_ - now), 1000) + 1)) -- +1: SLACK in fast.lua
      if plain then -- a string, as fast writes it
        rcall('PSETEX', key, ms, pol .. '\0' .. dump(root, S[1]))
      else
        if rewrite or plainOld then rcall('DEL', key) end
        local args, dels = {}, {}
        if all or plainOld then args[1], args[2] = 'p', pol end
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
        each('HDEL', dels)
        each('HSET', args)
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
