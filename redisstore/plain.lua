-- numerus redisstore engine: each subject's limiter state in one key, in integer microseconds. It
-- mirrors internal/kernel (which counts nanoseconds) step for step; every number stays an exact
-- integer at or below 2^53, which the Go side guarantees by validating the policy first.
--
-- One check:   KEYS[1] the subject's key.
--              ARGV op ('a' acquire, 'p' peek, 'r' reset, which needs nothing more), then:
--                ttls   the least TTL in ms, in decimal, as PSETEX takes it;
--                pol    the policy: its tokens, joined by spaces: '&' or '|' and a child count
--                       before the children, or a kind letter and its numbers (see policy.go), in
--                       prefix order;
--                consts the policy's constants, packed '<dc1ddddd': the least TTL in ms again, then
--                       for a plain policy its kind and five numbers (below), for any other '-'
--                       and zeros, then each of pol's nodes in turn, packed '<c1ddd': its kind
--                       and numbers, zeros past those it takes (reading them costs far less than
--                       the text: the engine reads pol only as a key keeps it);
--                call   the check's numbers, packed '<dd': cost, and the caller's time in µs or
--                       -1 for the server's (TIME); absent for the commonest check, of cost 1 at
--                       the server's time.
--              Reply: the decision (see below).
--              The Go side validates every argument before it calls; the script trusts them, and
--              never the state it reads.
-- A batch:     KEYS the subjects' keys, all acquired under one policy, one after the other.
--              ARGV 'B', ttls, pol, consts as above, then no call (each check of cost 1 at the
--              server's time), one (every check's), or one for each key. The server's time is
--              read once.
--              Reply: for each check that failed, its index (from 1) and its error; then the
--              decisions of all, one after the other (zeros for those that failed).
-- Decision     little-endian doubles: allowed (0 or 1), remaining, limit, retry instant, full
--              instant, now, next instant (from which the subject holds one token more than
--              remaining: now when it is full), and the index from 0 of the binding leaf (see
--              keyed.Decision.Binding); -1 stands for never.
-- Plain        one leaf that is not a log: its kind k and numbers a, b, c, d, e are, for g (gcra),
--              t (token) and l (leaky) buckets, the rate N per P µs, the size, and for g the
--              quotient and remainder of size·P by N; for f (finite) the size; for w (fixed
--              window) and c (sliding counter), the width W, the limit and the origin O; unused
--              numbers are 0.
-- Keys         A plain policy keeps a string: pol, a zero byte, and the leaf's state. Every other
--              policy keeps a hash: p = pol; "<i>" = the state of leaf i; "<i>.<n>" = entry n of
--              log leaf i (at, cum). States are little-endian doubles (struct.pack), exact up to
--              2^53. A key in any other form is corrupt: the check fails, and grants nothing.
--
-- The script is this file, engine.lua and main.lua, joined (see script.go). It runs in full on
-- every call, and each function it defines is a closure made anew, so it defines each only where
-- it is needed. Each algorithm exists once, for the plain path and for trees and logs alike: debit
-- and status (with next) in the leaves below, the logs' own parts (which only the engine reaches)
-- and advance (which only trees need) in engine.lua; all but the GCRA of the plain path (see GCRA).
-- A subject under a plain policy, kept under that policy or not at all (the common case), takes
-- the plain path of this file: one GET (none in a batch, which reads the plain keys with one
-- MGET) and one PSETEX (a SET with its TTL, which costs less than SET PX), on plain numbers, with
-- no table made. Every other check runs the engine (engine.lua), which is defined only then, and
-- which defines the code only logs, trees or a policy change need when they do.
--
-- GCRA: the plain path of a GCRA is the one exception to algorithms written once: it decides in
-- straight-line code of its own (stage 1 below), with no function defined or called, because the
-- leaves' functions cost it far more than the arithmetic itself. Measured under callgrind (the
-- whole server, serial admissions at the caller's time, BenchmarkServerCost): 64,000 instructions
-- a check in this code, 103,000 through the leaves' functions (which the other plain kinds take:
-- a token bucket costs 90,000, a fixed window 94,000, against 68,000 and 80,000 in the inline
-- code each had before). Making a function costs the server some 500 to 1,000 instructions,
-- calling one some 450, a table some 2,000. The differential tests run this code against the
-- in-process GCRA, and the leaves' GCRA in trees.
--
-- What a call costs the server was measured (instructions per EVALSHA under callgrind, INFO
-- commandstats): calling any C function (struct.pack, tonumber, string.byte, math.fmod) costs some
-- 600 instructions, a Lua operation some 30 to 100, a redis.call several thousand (TIME 6000,
-- PSETEX 11000); so the numbers come packed (tonumber parses text at 1900 a number), the check of
-- cost 1 at the server's time sends none, % replaces math.fmod where it is exact (below), the least
-- TTL comes as text too (a number passed to a Redis command is formatted), and the policy's tokens
-- are not sent apart from pol (Redis makes a Lua string of every argument). A table reply costs
-- more than the packed one.
--
-- SLACK: a key is kept one millisecond past the instant its subject is full again. Redis 7.2 and
-- later count a TTL set in a script from the script's start, a little before the TIME the script
-- read as now; without the slack, a key whose time until full was a whole number of milliseconds
-- would expire microseconds before full, and a check then would find the subject fresh.
--
-- x % y is x - floor(x/y)·y in doubles. For integers 0 <= x < 2^53 and y >= 1, the quotient rounds
-- to floor(x/y) or one above it, whose product with y stays within 2^53 and so is exact: x % y is
-- then the remainder, or the remainder less y, which the GCRA's code corrects.

-- The arguments, read once: a batch's checks share them, but for their own numbers (call).
local A, K = ARGV, KEYS -- locals cost less than globals
local mode = A[1]
if mode == 'r' then
  redis.call('DEL', K[1])
  return 1
end
local ttls, pol, batch = A[2], A[3], mode == 'B'
local ttl, k, a, b, c, d, e, tail = struct.unpack('<dc1ddddd', A[4]) -- tail: where the nodes start
local op, cost, now = mode, 1, -1
if A[5] then cost, now = struct.unpack('<dd', A[5]) end
local server -- the server's time in µs, read once
if now < 0 then -- each (below) reads it too: a function shared here would cost every check its making
  local t = redis.call('TIME')
  server = t[1] * 1000000 + t[2]
  now = server
end
local decided, failed, seen, got, fail, each -- a batch's decisions, failures, keys checked, strings read
if batch then
  op, decided, failed, seen = 'a', {}, {}, {}
  if k ~= '-' then got = redis.call('MGET', unpack(K)) end -- false if absent or not a string
  fail = function(i, err) -- the i-th check failed with the error reply err
    decided[i] = string.rep('\0', 64)
    failed[#failed + 1] = i
    failed[#failed + 1] = err
  end
  if #A == 4 + #K then -- a call for each key: each(i) reads the i-th check's cost and now
    each = function(i)
      cost, now = struct.unpack('<dd', A[4 + i])
      if now < 0 then
        if not server then
          local t = redis.call('TIME')
          server = t[1] * 1000000 + t[2]
        end
        now = server
      end
    end
  end
end
local MAXI = 2 ^ 53 -- no number may exceed it
local MAXT = 2 ^ 52 -- no instant the store writes exceeds it (2112): past it, sums are not exact

-- The leaves' algorithms and their helpers, defined in stage 2 below (see the leaves), but the
-- logs' (logDebit, logStatus and expire) and int, which only the engine needs and defines (see
-- needLogs in engine.lua); and the log entries read of the check that runs.
local fdiv, cdiv, int, start, valid, fresh, counts, debit, status, expire, logDebit, logStatus
local cache

-- The plain path: the checks, in turn, of a plain policy pol of kind k and numbers a, b, c, d, e
-- (see the top of this file), on subjects whose key holds that policy or nothing. The key is a
-- string: pol, a zero byte, and the leaf's state, read in one GET (or from the batch's MGET) and
-- written in one PSETEX. The plain path decides as the engine does; at the first check it cannot
-- decide (a key of another type or policy, a state it cannot trust), it stops (break), and
-- main.lua leaves that check and the rest to the engine. It runs in two stages: a GCRA's checks
-- first, in its own code (stage 1, see GCRA); then, if checks remain, the leaves are defined and
-- the plain path goes on with them (stage 2) for the other kinds, and the engine for the rest.
local i, stage = 1, 2 -- the check at hand, and the stage
if k == 'g' then stage = 1 end
while true do
  if stage == 2 then
    local NEVER, fmod = math.huge, math.fmod

    -- fdiv and cdiv divide integers 0 <= x < 2^53 by y >= 1, rounding down and up (see x % y).
    fdiv = function(x, y)
      local r = x % y
      if r < 0 then r = r + y end
      return (x - r) / y
    end

    cdiv = function(x, y)
      local r = x % y
      if r < 0 then r = r + y end
      local q = (x - r) / y
      if r > 0 then q = q + 1 end
      return q
    end

    -- start returns the start of the window of width w aligned on origin that holds at.
    start = function(at, origin, w)
      local x = at - origin
      local m
      if x >= 0 then m = x % w else m = fmod(x, w) end -- % where it is exact (see x % y)
      if m < 0 then m = m + w end
      return at - m
    end

    -- The leaves: one implementation of each algorithm, for the plain path and for trees alike,
    -- mirroring the kernel's (internal/kernel) step for step in µs. A leaf is a kind k and three
    -- numbers x, y, z, as the policy writes them: for g, t and l the rate N per P µs and the size;
    -- for f the size; for w and c the width W, the limit and the origin O; for s and b the width W,
    -- the limit and the sub-window Q (1 for s). Its state is four numbers a, b, c, d, as its key
    -- keeps them: for g the TAT q + r/N and the latest instant; for t the tokens and for l the water,
    -- both scaled by P, and the latest instant; for f the tokens left; for w and c the start of the
    -- window counted, the previous and current counts and the latest instant; for a log, a is its
    -- table (see needLogs in engine.lua). The functions take and return plain numbers, not tables:
    -- a table costs the server some 2,000 instructions.

    -- valid reports whether a state read from a key can be trusted under the leaf.
    valid = function(k, x, y, z, a, b, c, d)
      -- n % 1 == 0: a whole number (not NaN, not infinite)
      if k == 'g' then
        if not (a % 1 == 0 and b % 1 == 0 and c % 1 == 0 and a >= 0 and a <= MAXI and b >= 0 and b < x and
              c >= 0 and c <= MAXT) then
          return false
        end
        local q, full = a - c, z * y -- the TAT may run size·P/N µs ahead of the latest instant
        local lr = full % x
        if lr < 0 then lr = lr + x end
        local lq = (full - lr) / x
        return q < lq or (q == lq and b <= lr)
      elseif k == 't' or k == 'l' then
        return a % 1 == 0 and b % 1 == 0 and a >= 0 and a <= z * y and b >= 0 and b <= MAXT
      elseif k == 'f' then
        return a % 1 == 0 and a >= 0 and a <= x
      end -- w, c
      return a % 1 == 0 and b % 1 == 0 and c % 1 == 0 and d % 1 == 0 and a >= -MAXI and a <= MAXI and
          b >= 0 and b <= y and c >= 0 and c <= y and d >= 0 and d <= MAXT and not (k == 'w' and b ~= 0) and
          (b + c == 0 or (start(a, z, x) == a and a <= d))
    end

    -- fresh returns the state of a leaf nobody has debited: buckets full, windows empty.
    fresh = function(k, x, y, z)
      if k == 'g' or k == 'l' then return 0, 0, 0 end
      if k == 't' then return z * y, 0 end
      if k == 'f' then return x end
      return 0, 0, 0, 0
    end

    -- counts returns, for a window of width W aligned on O whose state is (s, p, c) and a debit at
    -- at, the start of at's window and the previous and current counts there.
    counts = function(k, W, O, at, s, p, c)
      local st = start(at, O, W)
      if st == s then return st, p, c end
      if k == 'c' and s < st and st - s == W then return st, c, 0 end
      return st, 0, 0
    end

    -- debit returns whether the leaf in state a, b, c, d admits cost at at, and then at and the
    -- state that follows; or else false and the first instant it would admit, in µs. That instant
    -- is the exact one rounded up: when it lies n/m µs before (0 < n < m), the third and fourth
    -- results are n and m, so that the instant the kernel answers in ns, n·1000/m ns (rounded
    -- down) before the µs, can be told from another that rounds up to the same µs. A log's state
    -- is its table a, and b says whether to build the state that follows (see logDebit).
    debit = function(k, x, y, z, at, cost, a, b, c, d)
      if k == 'f' then
        if cost > a then return false, NEVER end
        return true, at, a - cost
      elseif k == 'g' then
        local N, P, size = x, y, z
        if cost > size then return false, NEVER end
        if c > at then at = c end
        local q, r, full = a, b, size * P
        if not (q > at or (q == at and r > 0)) then q, r = at, 0 end
        local s = cost * P -- the TAT moves on by s/N: q + r/N, r below N
        local m = s % N
        if m < 0 then m = m + N end
        q, r = q + (s - m) / N, r + m
        if r >= N then q, r = q + 1, r - N end
        local lr = full % N -- the TAT may run lq + lr/N µs ahead of at
        if lr < 0 then lr = lr + N end
        local lq = (full - lr) / N
        if q - at < lq or (q - at == lq and r <= lr) then return true, at, q, r, at end
        local back = (size - cost) * P -- refused: from the TAT less back/N, rounded up
        m = back % N
        if m < 0 then m = m + N end
        q, r = a - (back - m) / N, b - m
        if r < 0 then q, r = q - 1, r + N end
        if r > 0 then return false, q + 1, N - r, N end
        return false, q
      elseif k == 't' or k == 'l' then
        local N, P, size = x, y, z
        if cost > size then return false, NEVER end
        if b > at then at = b end
        local el, full = at - b, size * P
        if k == 't' then
          local have, want = full, cost * P
          if el < cdiv(full - a, N) then have = a + el * N end
          if have >= want then return true, at, have - want, at end
          local o = want - have -- refused: from at + o/N, rounded up
          local r = o % N
          if r < 0 then r = r + N end
          if r == 0 then return false, at + o / N end
          return false, at + (o - r) / N + 1, N - r, N
        end
        local lvl = 0
        if el < cdiv(a, N) then lvl = a - el * N end
        local over = lvl - (full - cost * P) -- lvl + cost·P may pass 2^53: not exact
        if over <= 0 then return true, at, lvl + cost * P, at end
        local r = over % N -- refused: from at + over/N, rounded up
        if r < 0 then r = r + N end
        if r == 0 then return false, at + over / N end
        return false, at + (over - r) / N + 1, N - r, N
      elseif k == 'w' or k == 'c' then
        local W, size = x, y
        if cost > size then return false, NEVER end
        if d > at then at = d end
        local s, prev, cur = counts(k, W, z, at, a, b, c)
        local room = size - cur - cost
        if k == 'w' then
          if room < 0 then return false, s + W end
          return true, at, s, 0, cur + cost, at
        end
        if room >= 0 and prev * (W - (at - s)) <= room * W then return true, at, s, prev, cur + cost, at end
        -- refused: from the least elapsed e with weight·(W−e) ≤ room·W, e = W - (room·W - n)/weight
        -- µs (n = room·W mod weight), rounded up: in this window (weight prev) or the next (cur)
        if room >= 0 and prev > room then
          local o = room * W
          local n = o % prev
          if n < 0 then n = n + prev end
          local e = W - (o - n) / prev
          if e < W or n > 0 then return false, s + e, n, prev end -- the kernel's test, e < W, made in ns
        elseif room >= 0 then
          return false, s
        end
        local e, n, o = 0, 0, (size - cost) * W
        if cur > size - cost then
          n = o % cur
          if n < 0 then n = n + cur end
          e = W - (o - n) / cur
        end
        return false, s + W + e, n, cur
      end
      return logDebit(x, y, z, at, cost, a, b)
    end

    -- status returns the leaf's limit, its whole tokens left and the instant it is full again, and
    -- when more is set, the instant from which it holds one token more: the answer of a debit of
    -- that many (at when it is full), as the kernel's Next is.
    status = function(k, x, y, z, at, a, b, c, d, more)
      local lim, rem, full
      if k == 'f' then
        lim, rem, full = x, a, at
        if a < x then full = NEVER end
      elseif k == 'g' or k == 't' or k == 'l' then
        local N, P, size = x, y, z
        local last = b
        if k == 'g' then last = c end
        local t = at
        if last > t then t = last end
        lim = size
        if k == 'g' then
          rem, full = size, t
          if a > t or (a == t and b > 0) then
            full = a
            if b > 0 then full = full + 1 end
            rem = size - cdiv((a - t) * N + b, P)
          end
        elseif k == 't' then
          local have = size * P
          if t - last < cdiv(have - a, N) then have = a + (t - last) * N end
          rem, full = fdiv(have, P), t + cdiv(size * P - have, N)
        else
          local lvl = 0
          if t - last < cdiv(a, N) then lvl = a - (t - last) * N end
          rem, full = fdiv(size * P - lvl, P), t + cdiv(lvl, N)
        end
      elseif k == 'w' or k == 'c' then
        local W, size = x, y
        local t = at
        if d > t then t = d end
        local s, prev, cur = counts(k, W, z, t, a, b, c)
        lim, rem, full = size, size - cur, t
        if k == 'c' then
          rem = (size - cur) * W - prev * (W - (t - s))
          if rem > 0 then rem = fdiv(rem, W) else rem = 0 end
          if cur > 0 then full = s + 2 * W elseif prev > 0 then full = s + W end
        elseif cur > 0 then
          full = s + W
        end
      else
        lim, rem, full = logStatus(x, y, z, at, a)
      end
      if not more or rem >= lim then return lim, rem, full, at end
      local n = 1 -- one token more
      if rem > 0 then n = rem + 1 end
      local ok, from = debit(k, x, y, z, at, n, a, b, c, d)
      if ok then return lim, rem, full, at end
      return lim, rem, full, from
    end
  end
  while K[i] and k ~= '-' do
    local name = K[i]
    if each then each(i) end
    local s, nx = nil, false -- nx: MGET found no string, so the write must find no key either
    if got then
      if not seen[name] then s, nx = got[i] or nil, not got[i] end -- a key checked before is read again
      seen[name] = true
    end
    if s == nil and not nx then s = redis.pcall('GET', name) end -- a table if not a string: its length is 0
    local n = #pol
    local ok, from, rem, lim, full, nxt, out -- the decision, and the string to write
    if stage == 1 then -- GCRA
      local N, P, size, lq, lr = a, b, c, d, e -- the TAT may run lq + lr/N µs ahead
      local q, r, last = 0, 0, 0
      if s then
        if #s ~= n + 25 or s:byte(n + 1) ~= 0 then break end
        local p
        p, q, r, last = struct.unpack('<sddd', s)
        if p ~= pol then break end
        if not (q % 1 == 0 and r % 1 == 0 and last % 1 == 0 and q >= 0 and r >= 0 and last >= 0 and q <= MAXI and
              r < N and last <= MAXT) or q - last > lq or (q - last == lq and r > lr) then
          break
        end
      end
      ok, from, lim = false, -1, size
      local at = now
      if last > at then at = last end
      if cost <= size then
        local bq, br = q, r
        if not (bq > at or (bq == at and br > 0)) then bq, br = at, 0 end
        local sc = cost * P
        local m = sc % N
        if m < 0 then m = m + N end
        local nr, nq = br + m, bq + (sc - m) / N -- br and m are below N: carry at most 1
        if nr >= N then nr, nq = nr - N, nq + 1 end
        if nq - at < lq or (nq - at == lq and nr <= lr) then
          ok, from = true, now
          if op == 'a' then
            q, r, last = nq, nr, at
            out = struct.pack('<sddd', pol, q, r, last)
          end
        end
      end
      rem, full = size, at
      if q > at or (q == at and r > 0) then
        full = q
        if r > 0 then full = full + 1 end
        local x = (q - at) * N + r -- the debt, in 1/N µs (at most size·P): rem = size - ceil(x/P)
        local m = x % P
        if m < 0 then m = m + P end
        rem = size - (x - m) / P
        if m > 0 then rem = rem - 1 end
      end
      -- A debit of n is refused until the TAT less (size - n)·P/N, rounded up: from, for a refused
      -- cost, then nxt, for rem + 1 unless full (one loop: no function, see GCRA).
      local refused, want = not ok and cost <= size, rem + 1
      if refused then want = cost end
      nxt = now
      while want <= size do
        local back = (size - want) * P
        local m = back % N
        if m < 0 then m = m + N end
        local nq, nr = q - (back - m) / N, r - m
        if nr < 0 then nq, nr = nq - 1, nr + N end
        if nr > 0 then nq = nq + 1 end
        if refused then from, refused, want = nq, false, rem + 1 else nxt, want = nq, size + 1 end
      end
    else -- the leaves' functions, for any plain kind
      local sf, bytes = '<sd', 9 -- the string's layout: pol, a zero byte and the state
      if k == 'g' then
        sf, bytes = '<sddd', 25
      elseif k == 't' or k == 'l' then
        sf, bytes = '<sdd', 17
      elseif k == 'w' or k == 'c' then
        sf, bytes = '<sdddd', 33
      end
      local sa, sb, sc, sd
      if s then
        if #s ~= n + bytes or s:byte(n + 1) ~= 0 then break end
        local p
        p, sa, sb, sc, sd = struct.unpack(sf, s)
        if p ~= pol or not valid(k, a, b, c, sa, sb, sc, sd) then break end
      else
        sa, sb, sc, sd = fresh(k, a, b, c)
      end
      local na, nb, nc, nd
      ok, from, na, nb, nc, nd = debit(k, a, b, c, now, cost, sa, sb, sc, sd)
      if ok then
        from = now
        if op == 'a' then
          sa, sb, sc, sd = na, nb, nc, nd
          out = struct.pack(sf, pol, sa, sb, sc, sd)
        end
      elseif from > MAXI then
        from = -1
      end
      lim, rem, full, nxt = status(k, a, b, c, now, sa, sb, sc, sd, true)
      if nxt > MAXI then nxt = -1 end
    end
    local reply, werr -- the decision, or the error of the write
    if out then -- write: the TTL is the time until full, in ms rounded up, and one more (SLACK), at least ttl
      local ms = full - now
      if full > MAXI then ms = MAXI - 1 - now end -- a spent finite bucket: kept until 2255
      if ms > (ttl - 1) * 1000 then -- ceil(ms/1000) + 1 > ttl: an integer below 2^53, sent exactly
        local m = ms % 1000
        if m < 0 then m = m + 1000 end
        ms = (ms - m) / 1000 + 1
        if m > 0 then ms = ms + 1 end
      else -- the least TTL, as the caller wrote it: no number to format
        ms = ttls
      end
      if not nx then
        werr = redis.pcall('PSETEX', name, ms, out).err
      else
        local set = redis.pcall('SET', name, out, 'PX', ms, 'NX')
        if not set then break end -- a key of another type: the engine decides it
        werr = set.err
      end
    end
    if full > MAXI then full = -1 end
    reply = struct.pack('<dddddddd', ok and 1 or 0, rem, lim, from, full, now, nxt, 0)
    if werr then reply = { err = werr } end
    if not batch then return reply end
    if werr then fail(i, reply) else decided[i] = reply end
    i = i + 1
  end
  if stage == 2 or not K[i] then break end
  stage = 2 -- a GCRA's check the plain path could not decide: the leaves, for the engine
end
