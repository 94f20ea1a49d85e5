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
--                       and zeros;
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
-- every call, and each function it defines is a closure made anew, at a cost of one binding per
-- upvalue, so it defines few, each only where it is needed. A subject under a plain policy, kept
-- under that policy or not at all (the common case), takes the fast path of this file:
-- straight-line code in the main chunk, on plain numbers, one GET and one PSETEX (a SET with its
-- TTL, which costs less than SET PX), no function made or called for a GCRA. Every other check runs
-- the general engine (engine.lua), which is defined only then, and which defines the code only
-- logs, trees or a policy change need when they do. Both decide alike: the differential tests run
-- every kind alone (the fast path) and in trees (the engine), against the in-process limiters.
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
-- then the remainder, or the remainder less y, which the fast path corrects.

-- The arguments, read once: a batch's checks share them, but for their own numbers (call).
local A, K = ARGV, KEYS -- locals cost less than globals
local mode = A[1]
if mode == 'r' then
  redis.call('DEL', K[1])
  return 1
end
local ttls, pol, batch = A[2], A[3], mode == 'B'
local ttl, k, a, b, c, d, e = struct.unpack('<dc1ddddd', A[4])
local op, cost, now, each = mode, 1, -1, false
if A[5] then cost, now = struct.unpack('<dd', A[5]) end
local server -- the server's time in µs, read once
if now < 0 then
  local t = redis.call('TIME')
  server = t[1] * 1000000 + t[2]
  now = server
end
local decided, failed, seen, got, fail -- a batch's decisions, failures, keys checked, strings read
if batch then
  op, each, decided, failed, seen = 'a', #A == 4 + #K, {}, {}, {}
  if k ~= '-' then got = redis.call('MGET', unpack(K)) end -- false if absent or not a string
  fail = function(i, err) -- the i-th check failed with the error reply err
    decided[i] = string.rep('\0', 64)
    failed[#failed + 1] = i
    failed[#failed + 1] = err
  end
end
local MAXI = 2 ^ 53 -- no number may exceed it
local MAXT = 2 ^ 52 -- no instant the store writes exceeds it (2112): past it, sums are not exact
local fmod, max, NEVER, fdiv, cdiv, int -- for the kinds but the GCRA: made only for them
if k ~= 'g' and k ~= '-' then
  fmod, max, NEVER = math.fmod, math.max, math.huge
  fdiv = function(x, y) return (x - fmod(x, y)) / y end
  cdiv = function(x, y)
    local r = fmod(x, y)
    local q = (x - r) / y
    if r > 0 then q = q + 1 end
    return q
  end
  int = function(x, lo, hi) return x % 1 == 0 and x >= lo and x <= hi end
end

-- The fast path: the checks, in turn, of a plain policy pol of kind k and numbers a, b, c, d, e
-- (see the top of this file), on subjects whose key holds that policy or nothing. The key is a
-- string: pol, a zero byte, and the leaf's state, read in one GET (or from the batch's MGET) and
-- written in one PSETEX. The fast path decides as the general engine does; at the first
-- check it cannot decide (a key of another type or policy, a state it cannot trust), it stops
-- (break), and main.lua leaves that check and the rest to the engine. The GCRA, the commonest,
-- comes first, and calls no function but the GET and PSETEX.
local i = 1 -- the check at hand
while k ~= '-' and K[i] do
  local key = K[i]
  if each then
    cost, now = struct.unpack('<dd', A[4 + i])
    if now < 0 then
      if not server then
        local t = redis.call('TIME')
        server = t[1] * 1000000 + t[2]
      end
      now = server
    end
  end
  local s, nx = nil, false -- nx: MGET found no string, so the write must find no key either
  if got then
    if not seen[key] then s, nx = got[i] or nil, not got[i] end -- a key checked before is read again
    seen[key] = true
  end
  if s == nil and not nx then s = redis.pcall('GET', key) end -- a table if not a string: its length is 0
  local fresh, n = not s, #pol
  local reply, werr -- the decision, or the error of the write
  if k == 'g' then
    local N, P, size, lq, lr = a, b, c, d, e -- the TAT may run lq + lr/N µs ahead
    local q, r, last = 0, 0, 0
    if not fresh then
      if #s ~= n + 25 or s:byte(n + 1) ~= 0 then break end
      local p
      p, q, r, last = struct.unpack('<sddd', s)
      if p ~= pol then break end
      if not (q % 1 == 0 and r % 1 == 0 and last % 1 == 0 and q >= 0 and r >= 0 and last >= 0 and q <= MAXI and
            r < N and last <= MAXT) or q - last > lq or (q - last == lq and r > lr) then
        break
      end
    end
    local ok, from, out = false, -1, nil
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
      else
        local back = (size - cost) * P
        local br2 = back % N
        if br2 < 0 then br2 = br2 + N end
        local fq, fr = q - (back - br2) / N, r - br2
        if fr < 0 then fq, fr = fq - 1, fr + N end
        if fr > 0 then fq = fq + 1 end
        from = fq
      end
    end
    local rem, full = size, at
    if q > at or (q == at and r > 0) then
      full = q
      if r > 0 then full = full + 1 end
      local x = (q - at) * N + r -- the debt, in 1/N µs (at most size·P): rem = size - ceil(x/P)
      local m = x % P
      if m < 0 then m = m + P end
      rem = size - (x - m) / P
      if m > 0 then rem = rem - 1 end
    end
    local nxt = now -- a debit of rem + 1 is refused until the TAT less (size - rem - 1)·P/N, rounded up
    if rem < size then
      local back = (size - rem - 1) * P
      local m = back % N
      if m < 0 then m = m + N end
      local nq, nr = q - (back - m) / N, r - m
      if nr < 0 then nq, nr = nq - 1, nr + N end
      if nr > 0 then nq = nq + 1 end
      nxt = nq
    end
    if out then -- write: the TTL is the time until full, in ms rounded up, and one more (SLACK), at least ttl
      local ms = full - now
      if ms > (ttl - 1) * 1000 then -- ceil(ms/1000) + 1 > ttl: an integer below 2^53, sent exactly
        local m = ms % 1000
        if m < 0 then m = m + 1000 end
        ms = (ms - m) / 1000 + 1
        if m > 0 then ms = ms + 1 end
      else -- the least TTL, as the caller wrote it: no number to format
        ms = ttls
      end
      if not nx then
        werr = redis.pcall('PSETEX', key, ms, out).err
      else
        local set = redis.pcall('SET', key, out, 'PX', ms, 'NX')
        if not set then break end -- a key of another type: the engine decides it
        werr = set.err
      end
    end
    reply = struct.pack('<dddddddd', ok and 1 or 0, rem, size, from, full, now, nxt, 0)
  else
    local ok, from, rem, full, out, nxt = false, NEVER, 0, now, nil, now -- nxt: as for the GCRA
    local lim = c
    if k == 't' or k == 'l' then
      local N, P, size = a, b, c
      local F = size * P
      local x, last = 0, 0 -- tokens (t) or water (l), scaled by P
      if k == 't' then x = F end
      if not fresh then
        if #s ~= n + 17 or s:byte(n + 1) ~= 0 then break end
        local p
        p, x, last = struct.unpack('<sdd', s)
        if p ~= pol then break end
        if not (int(x, 0, F) and int(last, 0, MAXT)) then break end
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
        if rem < size then nxt = at + cdiv((rem + 1) * P - have, N) end
      else
        local lvl = 0
        if at - last < cdiv(x, N) then lvl = x - (at - last) * N end
        if cost <= size then
          local over = lvl - (F - cost * P) -- lvl + cost·P may pass 2^53: not exact
          if over > 0 then
            from = at + cdiv(over, N)
          else
            ok = true
            if op == 'a' then lvl = lvl + cost * P end
          end
        end
        x, rem, full = lvl, fdiv(F - lvl, P), at + cdiv(lvl, N)
        if rem < size then nxt = at + cdiv(lvl - (F - (rem + 1) * P), N) end
      end
      if ok and op == 'a' then out = struct.pack('<sdd', pol, x, at) end
    elseif k == 'f' then
      local x = a
      lim = a
      if not fresh then
        if #s ~= n + 9 or s:byte(n + 1) ~= 0 then break end
        local p
        p, x = struct.unpack('<sd', s)
        if p ~= pol then break end
        if not int(x, 0, a) then break end
      end
      if cost <= x then
        ok = true
        if op == 'a' then
          x = x - cost
          out = struct.pack('<sd', pol, x)
        end
      end
      rem = x
      if x < a then full, nxt = NEVER, NEVER end
    else -- w, c: windows of width W aligned on O
      local W, size, O = a, b, c
      lim = size
      local ws, wp, wc, last = 0, 0, 0, 0
      if not fresh then
        if #s ~= n + 33 or s:byte(n + 1) ~= 0 then break end
        local p
        p, ws, wp, wc, last = struct.unpack('<sdddd', s)
        if p ~= pol then break end
        if not (int(ws, -MAXI, MAXI) and int(wp, 0, size) and int(wc, 0, size) and int(last, 0, MAXT)) or
            (k == 'w' and wp ~= 0) then
          break
        end
        if wp + wc > 0 then
          local m = fmod(ws - O, W)
          if m < 0 then m = m + W end
          if m ~= 0 or ws > last then break end
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
      -- take returns whether the window admits n tokens at at, or from when it will
      local take = function(n)
        local room = size - cur - n
        if k == 'w' then
          if room < 0 then return false, st + W end
          return true
        elseif room >= 0 and prev * (W - (at - st)) <= room * W then
          return true
        end
        if room >= 0 and prev > room then -- the least elapsed e with prev·(W−e) ≤ room·W
          local e = W - fdiv(room * W, prev)
          if e < W then return false, st + e end
        elseif room >= 0 then
          return false, st
        end
        local e = 0
        if cur > size - n then e = W - fdiv((size - n) * W, cur) end
        return false, st + W + e
      end
      if cost <= size then
        local f
        ok, f = take(cost)
        if not ok then from = f end
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
      if rem < size then
        local nok, f = take(rem + 1)
        if not nok then nxt = f end
      end
    end
    local flag = 0
    if ok then
      flag, from = 1, now
      if op == 'a' then
        local u = full
        if full == NEVER then u = MAXI - 1 end -- a spent finite bucket: kept until 2255
        local ms = cdiv(max(0, u - now), 1000) + 1 -- below 2^53: sent exactly (+1: SLACK)
        if ms <= ttl then ms = ttls end
        if not nx then
          werr = redis.pcall('PSETEX', key, ms, out).err
        else
          local set = redis.pcall('SET', key, out, 'PX', ms, 'NX')
          if not set then break end -- a key of another type: the engine decides it
          werr = set.err
        end
      end
    end
    if from == NEVER then from = -1 end
    if full == NEVER then full = -1 end
    if nxt == NEVER then nxt = -1 end
    reply = struct.pack('<dddddddd', flag, rem, lim, from, full, now, nxt, 0)
  end
  if werr then reply = { err = werr } end
  if not batch then return reply end
  if werr then fail(i, reply) else decided[i] = reply end
  i = i + 1
end
