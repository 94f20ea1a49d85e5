-- The engine of the numerus redisstore script: see plain.lua. It decides trees, logs and policy
-- changes, with the leaves' algorithms of plain.lua.

-- engine defines the engine, on the leaves' algorithms and helpers of plain.lua (needLogs(key)
-- defines the logs' for the check of key, and returns their entry function), and returns its
-- check and its policy parser.
local function engine(cdiv, int, valid, fresh, counts, debit, status, needLogs)
  local NEVER = math.huge
  local MAXI = 2 ^ 53 -- no number may exceed it
  local MAXT = 2 ^ 52 -- no instant the store writes exceeds it (2112): past it, sums are not exact
  local fmod, min, max, tonumber, type = math.fmod, math.min, math.max, tonumber, type
  local spack, sunpack, sfmt = struct.pack, struct.unpack, string.format
  local rcall, rpcall = redis.call, redis.pcall
  local key -- the key of the check that runs
  local entry -- a log's entries, once needLogs has defined them

  local function corrupt(what)
    error({ err = 'NUMERUS_CORRUPT ' .. key .. ': ' .. what })
  end

  -- Policies. A leaf of a tree is {k, i, x, y, z} (its kind, its index and its numbers); an And
  -- or Or is {k, c, lo, hi, leaves} ('&' or '|', its children, the indexes of the leaves below
  -- it, and the policy's leaves).

  local function leafOf(k, i, x, y, z)
    local l = { x, y, z, k = k, i = i, log = k == 's' or k == 'b' }
    if k == 'g' or k == 't' or k == 'l' then
      if x < 1 or y < 1 or z < 1 or z * y + x > MAXI then return nil end
    elseif k == 'f' then
      if x < 1 then return nil end
    elseif k == 'w' or k == 'c' then
      if x < 1 or y < 1 or z >= x or (k == 'c' and y * x > MAXI) then return nil end
    else
      l[3] = z or 1
      if x < 1 or y < 1 or l[3] < 1 or fmod(x, l[3]) ~= 0 then return nil end
    end
    return l
  end

  -- node reads the policy node at toks[i]: it returns the node and the index after it, or nil.
  local function node(toks, i, leaves, depth)
    local k = toks[i]
    if k == '&' or k == '|' then
      local n, j = tonumber(toks[i + 1]), i + 2
      if depth >= MAXDEPTH or not int(n, 1, MAXKIDS) then return nil end
      local nd = { k = k, c = {}, lo = #leaves + 1, leaves = leaves }
      for c = 1, n do
        nd.c[c], j = node(toks, j, leaves, depth + 1)
        if not j then return nil end
      end
      nd.hi = #leaves -- the leaves below are those from lo to hi
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
    local x, y, z = tonumber(toks[i + 1]), tonumber(toks[i + 2]), tonumber(toks[i + 3])
    if not (int(x, 0, MAXI) and (m < 2 or int(y, 0, MAXI)) and (m < 3 or int(z, 0, MAXI))) then return nil end
    if m < 3 then z = nil end
    if m < 2 then y = nil end
    if #leaves >= MAXLEAVES then return nil end
    local l = leafOf(k, #leaves + 1, x, y, z)
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

  -- States of tree leaves: a table each, {a, b, c, d} (see the leaves above), and a log's own
  -- table. A log keeps head h and tail t indexes, the cumulative count before its head, and its
  -- newest entry (index t-1) inline as nat and ncum; older entries are fields, or in mem for a
  -- state built in memory, or in pushed for the one a debit just pushed; i is its leaf's index.
  -- A state is stored as little-endian doubles (struct.pack), which hold every integer up to 2^53
  -- exactly and cost far less to read and write than decimal text. These functions run the
  -- leaves' algorithms on those tables.

  -- ldebit is debit on the leaf l in state st: admitted, its third result is the state that
  -- follows, a table, when keep is set.
  local function ldebit(l, st, at, cost, keep)
    if l.log then return debit(l.k, l[1], l[2], l[3], at, cost, st) end
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

  local function load(l, s)
    if type(s) ~= 'string' then return nil end
    local k = l.k
    if l.log then
      if #s ~= 48 then return nil end
      local h, t, base, at, nat, ncum = sunpack('<dddddd', s)
      if not (int(h, 0, MAXI) and int(t, h, MAXI) and int(base, 0, MAXI) and int(at, 0, MAXT) and
            int(ncum, base, base + l[2]) and int(nat, 0, at)) then
        return nil
      end
      return { h = h, t = t, base = base, last = at, nat = nat, ncum = ncum, i = l.i }
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

  local function needTrees()
    if tdebit then return end

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

    -- tdebit mirrors numerus's DebitN over And and Or: whether the tree admits cost at at, and the
    -- answer (at itself on an admission, as numerus.single answers); when out is a table, it
    -- writes there the new states of the leaves it charged, at their indexes. An And charges
    -- every child or none; an Or, every child that admits.

    -- search moves from on until every child of an And admits cost there, as numerus.allOf does.
    local search = function(nd, S, from, cost)
      for _ = 1, 64 do -- limits.Search (64)
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

    tdebit = function(nd, S, at, cost, out)
      if nd.i then
        local ok, from, st = ldebit(nd, S[nd.i], at, cost, out)
        if ok and out then out[nd.i] = st end
        return ok, from
      end
      if nd.k == '&' then
        local from, ok = at, true
        for _, c in ipairs(nd.c) do
          local cok, f = tdebit(c, S, at, cost, ok and out)
          if not cok then
            from, ok = max(from, f), false
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
      for _, c in ipairs(nd.c) do
        local cok, f = tdebit(c, S, at, cost, out)
        any, from = any or cok, min(from, f)
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

    -- permille returns floor(1000·n/d) for integers 0 <= n < d <= 2^53, exactly: by long division,
    -- a decimal digit at a time, each 10·n made of doublings kept below d.
    local function permille(n, d)
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

    -- tstatus mirrors numerus's Status: an And has the least limit and remaining, an Or the most, and
    -- both are full when every child is. Its fourth result is the leaf whose tokens the remaining
    -- counts, as typed's binding finds it, and its fifth the instant that leaf holds one token
    -- more: in an And the child's with the fewest left (ties: the one whose next token comes last,
    -- which holds the And back), in an Or the child's with the most (ties: the next token first).
    -- The next token's instant is compared as answering compares answers, in ns (µs, and ns
    -- before it: its sixth result).
    tstatus = function(nd, S, at)
      if nd.i then
        local st = S[nd.i]
        local lim, rem, full, nxt = lstatus(nd, st, at, true)
        local lag = 0
        if rem < lim then
          local ok, f, n, m = ldebit(nd, st, at, max(rem, 0) + 1)
          if not ok and n and n > 0 then lag = permille(n, m) end
          if not ok then nxt = f end
        end
        return lim, rem, full, nd.i, nxt, lag
      end
      local and_ = nd.k == '&'
      local lim, rem, full, leaf, nxt, lag = tstatus(nd.c[1], S, at)
      full = max(full, at)
      for j = 2, #nd.c do
        local cl, cr, cf, ci, cn, cg = tstatus(nd.c[j], S, at)
        if and_ then
          if cr < rem or (cr == rem and (cn > nxt or (cn == nxt and cg < lag))) then leaf, nxt, lag = ci, cn, cg end
          lim, rem = min(lim, cl), min(rem, cr)
        else
          if cr > rem or (cr == rem and (cn < nxt or (cn == nxt and cg > lag))) then leaf, nxt, lag = ci, cn, cg end
          lim, rem = max(lim, cl), max(rem, cr)
        end
        full = max(full, cf)
      end
      return lim, rem, full, leaf, nxt, lag
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
        local lag = 0
        if n and n > 0 then lag = permille(n, m) end
        return false, nd.i, from, lag
      end
      local and_, leaf, from, lag = nd.k == '&', nil, nil, nil
      for _, c in ipairs(nd.c) do
        local ok, cl, cf, cg = answering(c, S, at, cost)
        if ok then
          if not and_ then return true end
        elseif not leaf or (and_ and (cf > from or (cf == from and cg < lag))) or
            (not and_ and (cf < from or (cf == from and cg > lag))) then
          leaf, from, lag = cl, cf, cg
        end
      end
      if not leaf then return true end
      return false, leaf, from, lag
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
    for _, l in ipairs(leaves) do hasLog = hasLog or l.log end
    if hasLog then entry = needLogs(key) end
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
      for i, l in ipairs(leaves) do at = max(at, last(l, S[i])) end
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
      if not ok then bind = select(2, answering(root, S, at, cost)) end
      nxt = now -- when the tree holds one token more than rem: the answer of a debit of that many
      if rem < lim then
        local nok, nfrom = tdebit(root, S, at, max(rem, 0) + 1)
        if not nok then nxt = nfrom end
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
                for n = o.h, min(st.h, o.t - 1) - 1 do dels[#dels + 1] = i .. '.' .. sfmt('%d', n) end
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
                  args[#args + 1] = i .. '.' .. sfmt('%d', n)
                  args[#args + 1] = spack('<dd', entry(st, n))
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
    if nxt == NEVER then nxt = -1 end
    local flag = 0
    if ok then flag = 1 end
    return spack('<dddddddd', flag, rem, lim, from, full, now, nxt, bind - 1)
  end

  return check, parse
end
