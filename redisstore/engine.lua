-- The engine of the numerus redisstore script: see plain.lua. It decides trees, logs and policy
-- changes, with the leaves' algorithms of plain.lua.

-- engine defines the engine, on the leaves' algorithms and helpers of plain.lua, and returns its
-- check and its policy's readers, of text and of the packed nodes.
local function engine(cdiv, valid, fresh, counts, debit, status)
  local NEVER = math.huge
  local MAXI = 2 ^ 53 -- no number may exceed it
  local MAXT = 2 ^ 52 -- no instant the store writes exceeds it (2112): past it, sums are not exact
  local fmod, floor, min, max, tonumber, type = math.fmod, math.floor, math.min, math.max, tonumber, type
  local spack, sunpack, sfmt = struct.pack, struct.unpack, string.format
  local rcall, rpcall = redis.call, redis.pcall
  local key -- the key of the check that runs
  local entry -- a log's entries, once needLogs has defined them

  -- NAMES are the fields of the first leaves' states, written here: tostring formats a number at
  -- some 3,000 instructions.
  local NAMES = { '1', '2', '3', '4', '5', '6', '7', '8', '9' }

  int = function(x, lo, hi) return x and x % 1 == 0 and x >= lo and x <= hi end -- % 1: see valid

  -- needLogs defines the logs' algorithms, for the check of the key name (no entry read yet), and
  -- returns entry.
  local function needLogs(name)
    key, cache = name, {}
    if entry then return entry end
    local function corrupt(what)
      error({ err = 'NUMERUS_CORRUPT ' .. key .. ': ' .. what })
    end

    entry = function(st, n)
      if n == st.t - 1 then return st.nat, st.ncum end
      if st.pushed and n == st.t - 2 then return st.pushed[1], st.pushed[2] end
      if st.mem then return st.mem[n][1], st.mem[n][2] end
      local c = cache[st.i] -- the entries of leaf i read so far, by index: each field is read once
      if not c then
        c = { pre = st.i .. '.' } -- its fields' prefix
        cache[st.i] = c
      end
      local e = c[n]
      if not e then
        local f = c.pre .. sfmt('%d', n)
        local s = rcall('HGET', key, f)
        if not s or #s ~= 16 then corrupt('log entry ' .. f) end -- HGET: a string, or false
        e = { sunpack('<dd', s) }
        if not (int(e[1], 0, st.nat) and int(e[2], 0, st.ncum)) then corrupt('log entry ' .. f) end
        c[n] = e
      end
      return e[1], e[2]
    end

    -- expire returns the head, base and count of a log's live entries at at: the entries more than
    -- a width old are dropped, found by galloping from the head then bisecting, so dropping k of
    -- them reads O(log k) fields.
    expire = function(W, st, at)
      if st.t == st.h then return st.h, st.base, 0 end
      local cut = at - W
      if st.nat <= cut then return st.t, max(st.base, st.ncum), 0 end
      if st.xat == at then return st.xh, st.xb, st.xn end -- as found for at before
      local lo, hi = st.h, st.t - 1
      if entry(st, lo) <= cut then -- some expired: gallop from the head, then bisect
        local step = 1
        while lo + step < hi and entry(st, lo + step) <= cut do lo, step = lo + step, step * 2 end
        hi = min(hi, lo + step)
        lo = lo + 1
        while lo < hi do
          local mid = floor((lo + hi) / 2)
          if entry(st, mid) > cut then hi = mid else lo = mid + 1 end
        end
      end
      local base = st.base
      if lo > st.h then
        local _, cum = entry(st, lo - 1)
        base = max(base, cum)
      end
      st.xat, st.xh, st.xb, st.xn = at, lo, base, st.ncum - base
      return lo, base, st.ncum - base
    end

    -- logDebit is debit for a sliding log of width W, limit size and sub-window Q, in state st:
    -- admitted, its third result is the state that follows, when keep is set.
    logDebit = function(W, size, Q, at, cost, st, keep)
      if cost > size then return false, NEVER end
      at = max(at, st.last)
      local h, base, count = expire(W, st, at)
      local over = cost - (size - count) -- count + cost may pass 2^53: not exact
      if over > 0 then
        local lo, hi = h, st.t - 1
        while lo < hi do
          local mid = floor((lo + hi) / 2)
          local _, cum = entry(st, mid)
          if cum - base >= over then hi = mid else lo = mid + 1 end
        end
        return false, entry(st, lo) + W
      end
      if not keep then return true, at end
      local q = start(at, 0, Q)
      local n = { h = h, t = st.t, base = base, last = at, nat = st.nat, ncum = st.ncum, mem = st.mem, i = st.i,
        xat = -1, xh = 0, xb = 0, xn = 0 }
      if count == 0 then
        n.h, n.t, n.base, n.nat, n.ncum = st.t, st.t + 1, 0, q, cost
      elseif q == st.nat then
        n.ncum = st.ncum + cost
      else
        n.t, n.nat, n.ncum, n.pushed = st.t + 1, q, st.ncum + cost, { st.nat, st.ncum }
      end
      return true, at, n
    end

    logStatus = function(W, size, _, at, st)
      at = max(at, st.last)
      local _, _, count = expire(W, st, at)
      local full = at
      if count > 0 then full = st.nat + W end
      return size, size - count, full
    end
    return entry
  end

  local function corrupt(what)
    error({ err = 'NUMERUS_CORRUPT ' .. key .. ': ' .. what })
  end

  -- Policies. A leaf of a tree is {k, i, x, y, z} (its kind, its index and its numbers); an And
  -- or Or is {k, c, lo, hi, leaves} ('&' or '|', its children, the indexes of the leaves below
  -- it, and the policy's leaves).

  -- node reads the policy node at position j of its source, through read(j), which returns the
  -- node's kind, its numbers x, y, z (nil past those the kind takes, or 0 for a packed node) and
  -- the position after it: node returns the node and the position after it, or nil.
  local function node(read, j, leaves, depth)
    local k, x, y, z, nx = read(j)
    if k == '&' or k == '|' then
      if k == '|' then leaves.ors = true end -- an Or needs advance
      if depth >= MAXDEPTH or not int(x, 1, MAXKIDS) then return nil end
      local nd = { k = k, c = {}, lo = #leaves + 1, hi = 0, leaves = leaves }
      for c = 1, x do
        nd.c[c], nx = node(read, nx, leaves, depth + 1)
        if not nx then return nil end
      end
      nd.hi = #leaves -- the leaves below are those from lo to hi
      return nd, nx
    end
    local m = 3
    if k == 'f' then
      m = 1
    elseif k == 's' then
      m = 2
    elseif not (k == 'g' or k == 't' or k == 'l' or k == 'w' or k == 'c' or k == 'b') then
      return nil
    end
    if not (int(x, 0, MAXI) and (m < 2 or int(y, 0, MAXI)) and (m < 3 or int(z, 0, MAXI))) then return nil end
    if m < 3 then z = nil end
    if m < 2 then y = nil end
    local i = #leaves + 1
    if i > MAXLEAVES then return nil end
    if k == 'g' or k == 't' or k == 'l' then
      if x < 1 or y < 1 or z < 1 or z * y + x > MAXI then return nil end
    elseif k == 'f' then
      if x < 1 then return nil end
    elseif k == 'w' or k == 'c' then
      if x < 1 or y < 1 or z >= x or (k == 'c' and y * x > MAXI) then return nil end
    else
      z = z or 1
      if x < 1 or y < 1 or z < 1 or fmod(x, z) ~= 0 then return nil end
    end
    local l = { x, y, z, k = k, i = i, f = NAMES[i] or tostring(i), log = k == 's' or k == 'b' }
    leaves[i] = l
    return l, nx
  end

  -- tree reads a policy from position j to stop through read (see node): its root and its
  -- leaves, or nil.
  local function tree(read, j, stop)
    local leaves = {}
    local root, nx = node(read, j, leaves, 0)
    if nx ~= stop then return nil end
    return root, leaves
  end

  -- parse reads the policy written text (its tokens joined by spaces, as a key keeps it): its root
  -- and its leaves, or nil.
  local function parse(text)
    local toks = {}
    for w in string.gmatch(text, '%S+') do toks[#toks + 1] = w end
    return tree(function(j)
      local k, m = toks[j], 3
      if k == '&' or k == '|' or k == 'f' then m = 1 elseif k == 's' then m = 2 end
      local x, y, z = tonumber(toks[j + 1]), nil, nil
      if m > 1 then y = tonumber(toks[j + 2]) end
      if m > 2 then z = tonumber(toks[j + 3]) end
      return k, x, y, z, j + m + 1
    end, 1, #toks + 1)
  end

  -- unpackPolicy reads the policy the caller packed from position j of consts (see plain.lua),
  -- which costs far less than its text: its root and its leaves, or nil.
  local function unpackPolicy(consts, j)
    return tree(function(at) return sunpack('<c1ddd', consts, at) end, j, #consts + 1)
  end

  -- States of tree leaves: a table each, {a, b, c, d} (see the leaves above), and a log's own
  -- table. A log keeps head h and tail t indexes, the cumulative count before its head, and its
  -- newest entry (index t-1) inline as nat and ncum; older entries are fields, or in mem for a
  -- state built in memory, or in pushed for the one a debit just pushed; i is its leaf's index;
  -- xh, xb and xn are what expire found at the instant xat (-1 for none yet).
  -- A state is stored as little-endian doubles (struct.pack), which hold every integer up to 2^53
  -- exactly and cost far less to read and write than decimal text. These functions run the
  -- leaves' algorithms on those tables.

  -- ldebit is debit on the leaf l in state st: admitted, its third result is the state that
  -- follows, a table, when keep is set.
  local function ldebit(l, st, at, cost, keep)
    if l.log then return debit(l.k, l[1], l[2], l[3], at, cost, st, keep) end
    local ok, from, a, b, c, d = debit(l.k, l[1], l[2], l[3], at, cost, st[1], st[2], st[3], st[4])
    if ok and keep then return true, from, { a, b, c, d } end
    return ok, from, a, b
  end

  local function lstatus(l, st, at, more)
    if l.log then return status(l.k, l[1], l[2], l[3], at, st, nil, nil, nil, more) end
    return status(l.k, l[1], l[2], l[3], at, st[1], st[2], st[3], st[4], more)
  end

  local function lfresh(l)
    if l.log then return { h = 0, t = 0, base = 0, last = 0, nat = 0, ncum = 0, i = l.i } end
    return { fresh(l.k, l[1], l[2], l[3]) }
  end

  -- last returns the latest instant a leaf's state holds (0 for a finite bucket).
  local function last(l, st)
    local k = l.k
    if l.log then return st.last end
    if k == 'g' then return st[3] end
    if k == 't' or k == 'l' then return st[2] end
    if k == 'f' then return 0 end
    return st[4]
  end

  -- load returns the state of leaf l that s holds (a string, or false for none), or nil when
  -- it cannot be trusted.
  local function load(l, s)
    if not s then return nil end
    local k = l.k
    if l.log then
      if #s ~= 48 then return nil end
      local h, t, base, at, nat, ncum = sunpack('<dddddd', s) -- n % 1 == 0: see valid
      if not (h % 1 == 0 and t % 1 == 0 and base % 1 == 0 and at % 1 == 0 and nat % 1 == 0 and ncum % 1 == 0 and
            h >= 0 and t >= h and t <= MAXI and base >= 0 and base <= MAXI and at >= 0 and at <= MAXT and
            ncum >= base and ncum <= base + l[2] and nat >= 0 and nat <= at) then
        return nil
      end
      return { h = h, t = t, base = base, last = at, nat = nat, ncum = ncum, i = l.i, xat = -1, xh = 0, xb = 0, xn = 0 }
    end
    local st
    if k == 'g' and #s == 24 then
      st = { sunpack('<ddd', s) }
    elseif (k == 't' or k == 'l') and #s == 16 then
      st = { sunpack('<dd', s) }
    elseif k == 'f' and #s == 8 then
      st = { sunpack('<d', s) }
    elseif (k == 'w' or k == 'c') and #s == 32 then
      st = { sunpack('<dddd', s) }
    else
      return nil
    end
    st[#s / 8 + 1] = nil -- struct.unpack's last result: the position after
    if not valid(k, l[1], l[2], l[3], st[1], st[2], st[3], st[4]) then return nil end
    return st
  end

  local function dump(l, st)
    local k = l.k
    if k == 'g' then return spack('<ddd', st[1], st[2], st[3]) end
    if k == 't' or k == 'l' then return spack('<dd', st[1], st[2]) end
    if k == 'f' then return spack('<d', st[1]) end
    if k == 'w' or k == 'c' then return spack('<dddd', st[1], st[2], st[3], st[4]) end
    return spack('<dddddd', st.h, st.t, st.base, st.last, st.nat, st.ncum)
  end

  -- Trees: their helpers are defined by needTrees, only for a policy that is a tree (a policy
  -- change needs them too).
  local advance, tdebit, tstatus, answering, convert

  local function loadAll(leaves, vals)
    local S = {}
    for i = 1, #leaves do
      S[i] = load(leaves[i], vals[i + 1])
      if not S[i] then corrupt('state of leaf ' .. i) end
    end
    return S
  end

  -- fields returns the fields of a hash kept under the policy of leaves, but its log entries.
  local function fields(leaves)
    local f = { 'p' }
    for i = 1, #leaves do f[i + 1] = leaves[i].f end
    return f
  end

  -- CHUNK is the most words a command takes from unpack here: Lua's stack holds about 8,000, and a
  -- log may have more entries to drop at once (a policy has at most MAXLEAVES leaves).
  local CHUNK = 4000

  -- hmget reads the fields fs of the key, CHUNK at a time: their values in order, or the error of
  -- the first read that failed (a key of another type).
  local function hmget(fs)
    if #fs <= CHUNK then return rpcall('HMGET', key, unpack(fs)) end
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

  -- needTrees defines the trees' helpers, and when conv is set those a policy change or an Or
  -- needs.
  local function needTrees(conv)
    if conv and not convert then
      -- advance brings a leaf's state to at without debiting it, as the kernel's Advance does: the
      -- state it returns decides alike at at and later, and counts an earlier instant as at. An Or
      -- that admits brings the leaves of its other children to its instant, so that every leaf of a
      -- tree counts the tree's latest instant as its own.
      advance = function(l, st, at)
        local k, x, y, z = l.k, l[1], l[2], l[3]
        if k == 'f' or at <= last(l, st) then return st end
        if l.log then -- its entries are instants, and only last moves
          return { h = st.h, t = st.t, base = st.base, last = at, nat = st.nat, ncum = st.ncum, mem = st.mem, i = st.i }
        end
        local a, b, c, d = st[1], st[2], st[3], st[4]
        if k == 'g' then return { a, b, at } end
        if k == 't' or k == 'l' then
          local el, lvl = at - b, 0
          if k == 't' then
            lvl = z * y
            if el < cdiv(z * y - a, x) then lvl = a + el * x end
          elseif el < cdiv(a, x) then
            lvl = a - el * x
          end
          return { lvl, at }
        end
        local s, prev, cur = counts(k, x, z, at, a, b, c)
        return { s, prev, cur, at }
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
        if vals and not (root0.i and not root0.log) then -- a string, kept only for a plain policy
          corrupt('a string under a policy kept in a hash')
        end
        vals = vals or hmget(fields(leaves0))
        if vals.err then corrupt('neither a hash nor a string: ' .. vals.err) end
        local S0 = loadAll(leaves0, vals)
        local S = {}
        if select(3, tstatus(root0, S0, now)) <= now then
          for i, l in ipairs(leaves) do S[i] = lfresh(l) end
          return S
        end
        local function shape(nd)
          if nd.i then return '.' end
          local s = nd.k .. #nd.c
          for _, c in ipairs(nd.c) do s = s .. ' ' .. shape(c) end
          return s
        end
        local at = now
        for i, lo in ipairs(leaves0) do at = max(at, last(lo, S0[i])) end
        local same, rem, used = shape(root0) == shape(root), NEVER, 0
        local function identical(lo, l)
          return lo and lo.k == l.k and lo[1] == l[1] and lo[2] == l[2] and lo[3] == l[3]
        end
        local kinds0, kinds = {}, {} -- how many changed leaves of each kind either tree holds
        for i, lo in ipairs(leaves0) do
          local lim, r = lstatus(lo, S0[i], at)
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
            if l.log then -- the hash is rewritten, so its entries move to memory
              S[i] = { h = so.h, t = so.t, base = so.base, last = so.last, nat = so.nat, ncum = so.ncum, mem = {}, i = i }
              for n = so.h, so.t - 2 do S[i].mem[n] = { entry(so, n) } end
            end
          else
            local r, u = rem, used
            if same and lo.k == l.k and kinds0[l.k] == 1 and kinds[l.k] == 1 then
              local lim
              lim, r = lstatus(lo, so, at)
              u = lim - r
            end
            local k, size = l.k, l[2]
            if k == 'g' or k == 't' or k == 'l' then size = l[3] elseif k == 'f' then size = l[1] end
            local c
            if k == 'g' or k == 't' or k == 'l' or k == 'f' then
              c = max(min(r, size), 0)
            else
              c = max(min(r, size - min(u, size)), 0)
            end
            local st = lfresh(l) -- a fresh leaf charged what it does not hold
            if c < size then st = select(3, ldebit(l, st, at, size - c, true)) end
            if l.log then
              st.last, st.mem = at, {}
            elseif k ~= 'f' then
              st = advance(l, st, at)
            end
            S[i] = st
          end
        end
        return S
      end
    end
    if tdebit then return end

    -- tdebit mirrors numerus's DebitN over And and Or: whether the tree admits cost at at, and the
    -- answer (at itself on an admission, as numerus.single answers); when out is a table, it
    -- writes there the new states of the leaves it charged, at their indexes. An And charges
    -- every child or none; an Or, every child that admits.

    -- search moves from on until every child of an And admits cost there, as numerus.allOf does.
    local search = function(nd, S, from, cost)
      local cs = nd.c
      for _ = 1, 64 do -- limits.Search (64)
        local moved = from
        for j = 1, #cs do
          local ok, f = tdebit(cs[j], S, from, cost)
          if not ok and f > moved then moved = f end
        end
        if moved == NEVER or not (moved > from) then return moved end
        from = moved
      end
      return NEVER
    end

    tdebit = function(nd, S, at, cost, out)
      if nd.i then
        local ok, from, st = ldebit(nd, S[nd.i], at, cost, out)
        if ok and out then out[nd.i] = st end
        return ok, from
      end
      local cs = nd.c
      if nd.k == '&' then
        local from, ok = at, true
        for j = 1, #cs do
          local cok, f = tdebit(cs[j], S, at, cost, ok and out)
          if not cok then
            if f > from then from = f end
            ok = false
            if from == NEVER then break end
          end
        end
        if ok then return true, at end
        if out then -- charge none: forget what the children that admitted wrote
          for i = nd.lo, nd.hi do out[i] = nil end
        end
        if from == NEVER then return false, NEVER end
        return false, search(nd, S, from, cost)
      end
      local from, any = NEVER, false
      for j = 1, #cs do
        local cok, f = tdebit(cs[j], S, at, cost, out)
        if cok then any = true end
        if f < from then from = f end
      end
      if not any then return false, from end
      if out then -- bring the leaves it did not charge to at
        for i = nd.lo, nd.hi do
          local l = nd.leaves[i]
          if not out[i] and l.k ~= 'f' then out[i] = advance(l, S[i], at) end
        end
      end
      return true, at
    end

    -- lag returns the ns an answer n/d µs before its µs lies before it (see debit): 0 unless n > 0,
    -- else floor(1000·n/d) for integers 0 < n < d <= 2^53, exactly: by long division,
    -- a decimal digit at a time, each 10·n made of doublings kept below d.
    local function lag(n, d)
      if not (n and n > 0) then return 0 end
      local p = 0
      for _ = 1, 3 do
        local q2, n2 = 0, n + n -- 2n = q2·d + n2, and so on
        if n >= d - n then q2, n2 = 1, n - (d - n) end
        local q4, n4 = 2 * q2, n2 + n2
        if n2 >= d - n2 then q4, n4 = q4 + 1, n2 - (d - n2) end
        local q8, n8 = 2 * q4, n4 + n4
        if n4 >= d - n4 then q8, n8 = q8 + 1, n4 - (d - n4) end
        local q, r = q8 + q2, n8 + n2 -- 10n = 8n + 2n
        if n8 >= d - n2 then q, r = q + 1, n8 - (d - n2) end
        p, n = 10 * p + q, r
      end
      return p
    end

    -- nextOf returns the instant from which leaf i of leaves, in state S[i] at at, holds one token
    -- more (at when it is full): the answer of a debit of that many, and the n and m of that answer
    -- (see debit). It is computed once for S and at, and only where tstatus meets a tie.
    local nexts, nextsS, nextsAt -- what nextOf found, for S at at
    local function nextOf(leaves, i, S, at)
      if nextsS ~= S or nextsAt ~= at then nexts, nextsS, nextsAt = {}, S, at end
      local e = nexts[i]
      if not e then
        local l, st = leaves[i], S[i]
        local lim, rem = lstatus(l, st, at)
        e = { at }
        if rem < lim then
          local more = 1
          if rem > 0 then more = rem + 1 end
          local ok, f, n, m = ldebit(l, st, at, more)
          if not ok then e = { f, n, m } end
        end
        nexts[i] = e
      end
      return e[1], e[2], e[3]
    end

    -- later reports whether leaf i's next token (see nextOf) comes after leaf j's, compared as
    -- answering compares answers, in ns (µs, and ns before it).
    local function later(leaves, i, j, S, at)
      local a, an, am = nextOf(leaves, i, S, at)
      local b, bn, bm = nextOf(leaves, j, S, at)
      return a > b or (a == b and lag(an, am) < lag(bn, bm))
    end

    -- tstatus mirrors numerus's Status: an And has the least limit and remaining, an Or the most, and
    -- both are full when every child is. Its fourth result is the leaf whose tokens the remaining
    -- counts, as typed's binding finds it: in an And the child's with the fewest left (ties: the one
    -- whose next token comes last, which holds the And back), in an Or the child's with the most
    -- (ties: the next token first).
    tstatus = function(nd, S, at)
      if nd.i then
        local lim, rem, full = lstatus(nd, S[nd.i], at)
        return lim, rem, full, nd.i
      end
      local and_, cs, leaves = nd.k == '&', nd.c, nd.leaves
      local lim, rem, full, leaf = tstatus(cs[1], S, at)
      if at > full then full = at end
      for j = 2, #cs do
        local cl, cr, cf, ci = tstatus(cs[j], S, at)
        if and_ then
          if cr < rem or (cr == rem and later(leaves, ci, leaf, S, at)) then leaf = ci end
          if cl < lim then lim = cl end
          if cr < rem then rem = cr end
        else
          if cr > rem or (cr == rem and later(leaves, leaf, ci, S, at)) then leaf = ci end
          if cl > lim then lim = cl end
          if cr > rem then rem = cr end
        end
        if cf > full then full = cf end
      end
      return lim, rem, full, leaf
    end

    -- answering returns whether the tree admits cost at at and, if not, the leaf whose answer the
    -- refusal gives, as typed's answering finds it: in an And the first child that refuses with
    -- the latest answer, in an Or the first with the earliest, down to a leaf. Answers are
    -- compared as the kernel gives them, in ns (µs, and ns before it), since two that round up
    -- to the same µs may differ. Its third and fourth results are that answer.
    answering = function(nd, S, at, cost)
      if nd.i then
        local ok, from, n, m = ldebit(nd, S[nd.i], at, cost)
        if ok then return true end
        return false, nd.i, from, n, m
      end
      local and_, cs, leaf, from, fn, fm = nd.k == '&', nd.c, nil, nil, nil, nil
      for j = 1, #cs do
        local ok, cl, cf, cn, cm = answering(cs[j], S, at, cost)
        if ok then
          if not and_ then return true end
        elseif not leaf or (and_ and (cf > from or (cf == from and lag(cn, cm) < lag(fn, fm)))) or
            (not and_ and (cf < from or (cf == from and lag(cn, cm) > lag(fn, fm)))) then
          leaf, from, fn, fm = cl, cf, cn, cm
        end
      end
      if not leaf then return true end
      return false, leaf, from, fn, fm
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
    local plainNew = root.i and not root.log -- kept in a string, not a hash
    if plainOld and not changed and not plainNew then corrupt('a string under a policy kept in a hash') end
    local hasLog = changed
    for j = 1, #leaves do hasLog = hasLog or leaves[j].log end
    if hasLog then entry = needLogs(key) end
    if changed or not root.i then needTrees(changed or leaves.ors) end

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
      for i, l in ipairs(leaves) do S[i] = lfresh(l) end
    end

    local S0, ok, from, changes = S, nil, nil, nil
    if op == 'p' then cost = 1 end
    local at = now -- a tree decides at the latest instant any leaf holds, if now is earlier
    if root.i then
      local st
      ok, from, st = ldebit(root, S[1], now, cost, true)
      if ok then from, changes = now, { st } end
    else
      for j = 1, #leaves do
        local t = last(leaves[j], S[j])
        if t > at then at = t end
      end
      changes = {}
      ok, from = tdebit(root, S, at, cost, op == 'a' and changes)
      if ok then from = now end
    end
    if ok and op == 'a' then
      S = {}
      for i = 1, #leaves do S[i] = changes[i] or S0[i] end
    end
    local lim, rem, full, nxt, bind
    if root.i then
      if root.log then
        lim, rem, full, nxt = status(root.k, root[1], root[2], root[3], now, S[1], nil, nil, nil, true)
      else
        local st = S[1]
        lim, rem, full, nxt = status(root.k, root[1], root[2], root[3], now, st[1], st[2], st[3], st[4], true)
      end
      bind = 1
    else
      lim, rem, full, bind = tstatus(root, S, at)
      if not ok then
        local _
        _, bind = answering(root, S, at, cost)
      end
      nxt = now -- when the tree holds one token more than rem: the answer of a debit of that many
      if rem < lim then
        local more = 1
        if rem > 0 then more = rem + 1 end
        if not ok and more == cost then -- the debit just refused, on the same states
          nxt = from
        else
          local nok, nfrom = tdebit(root, S, at, more)
          if not nok then nxt = nfrom end
        end
      end
    end

    -- An admission is written, and so is a conversion to a new policy, refused or by a Peek too:
    -- the old policy must not go on refilling a subject seen under the new one. Unless the carried
    -- state is full: kept, it would carry back to the old policy as full again, and start afresh
    -- there; the old state carries over as full again at any later check.
    if (op == 'a' and ok) or (rewrite and full > now) then
      local until_ = full
      if full == NEVER then until_ = MAXI - 1 end -- a spent finite bucket: kept until 2255
      local ms = sfmt('%d', max(ttl, cdiv(max(0, until_ - now), 1000) + 1)) -- +1: SLACK in plain.lua
      if plainNew then -- a string, as plain writes it
        rcall('PSETEX', key, ms, pol .. '\0' .. dump(root, S[1]))
      else
        if rewrite or plainOld then rcall('DEL', key) end
        local args, dels = {}, {}
        if all or plainOld then args[1], args[2] = 'p', pol end
        for i, l in ipairs(leaves) do
          local st = S[i]
          if all or plainOld or changes[i] then
            if l.log then -- drop the entries that expired, store the one pushed
              local o = S0[i]
              if not rewrite then
                for n = o.h, min(st.h, o.t - 1) - 1 do dels[#dels + 1] = l.f .. '.' .. sfmt('%d', n) end
              end
              if st.base >= 2 ^ 50 and st.t > st.h then -- rebase the cumulative counts
                local mem = {}
                for n = st.h, st.t - 2 do
                  local ea, ec = entry(st, n)
                  mem[n] = { ea, ec - st.base }
                end
                st = { h = st.h, t = st.t, base = 0, last = st.last, nat = st.nat, ncum = st.ncum - st.base, mem = mem, i = i }
              end
              if st.mem then
                for n = st.h, st.t - 2 do
                  args[#args + 1] = l.f .. '.' .. sfmt('%d', n)
                  args[#args + 1] = spack('<dd', entry(st, n))
                end
              elseif st.pushed and st.h <= st.t - 2 then
                args[#args + 1] = l.f .. '.' .. sfmt('%d', st.t - 2)
                args[#args + 1] = spack('<dd', st.pushed[1], st.pushed[2])
              end
            end
            args[#args + 1] = l.f
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
    if nxt == NEVER then nxt = -1 end
    local flag = 0
    if ok then flag = 1 end
    return spack('<dddddddd', flag, rem, lim, from, full, now, nxt, bind - 1)
  end

  return check, parse, unpackPolicy
end
