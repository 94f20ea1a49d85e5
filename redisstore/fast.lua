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
-- The script is this file, engine.lua and main.lua, joined (see script.go). It runs in full on
-- every call, and each function it defines is a closure made anew, at a cost of one binding per
-- upvalue, so it defines few, and none with many upvalues. A subject under a plain policy, kept
-- under that policy or not at all (the common case), takes the fast path of this file:
-- straight-line code on plain numbers, one GET and one SET. Every other check runs the general
-- engine (engine.lua), which is defined only then, and which defines the code only logs, trees or
-- a policy change need when they do. Both decide alike: the differential tests run every kind
-- alone (the fast path) and in trees (the engine), against the in-process limiters.

-- fast runs op on the subject at key under the policy written pol if it is plain: one leaf of kind
-- g, t, l, f, w or c (see leafOf in engine.lua), with numbers a, b, c and nothing after them
-- (extra is nil), which the script can run exactly. The key of a plain policy is a string: pol, a
-- zero byte, and the leaf's state, read in one GET (or given as got, from an MGET) and written in
-- one SET with its TTL. If the key holds that policy or nothing, fast returns the decision, as the
-- general engine would; otherwise (a policy that is not plain, a hash, another policy, a state it
-- cannot trust), it returns nil to leave the check to the general engine. It makes no closure
-- before the GCRA's code, the commonest, is done: each costs on every call.
local function fast(key, op, cost, now, ttl, ttls, pol, k, a, b, c, extra, got)
  local MAXI = 2 ^ 53 -- no number may exceed it
  if extra ~= nil or not a or a % 1 ~= 0 or a < 1 or a > MAXI then return nil end
  if k == 'f' then
    if b ~= nil then return nil end
  elseif not (b and c and b % 1 == 0 and c % 1 == 0 and b >= 1 and c >= 0 and b <= MAXI and c <= MAXI) then
    return nil
  elseif k == 'g' or k == 't' or k == 'l' then
    if c < 1 or c * b + a > MAXI then return nil end
  elseif not ((k == 'w' or k == 'c') and c < a and (k == 'w' or a * b <= MAXI)) then
    return nil
  end
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
    local at = now
    if last > at then at = last end
    if cost <= size then
      local bq, br = q, r
      if not (bq > at or (bq == at and br > 0)) then bq, br = at, 0 end
      local sc = cost * P
      local m = fmod(sc, N)
      local nr, nq = br + m, bq + (sc - m) / N -- br and m are below N: carry at most 1
      if nr >= N then nr, nq = nr - N, nq + 1 end
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
      if ms > ttl * 1000 then -- ceil(ms/1000) > ttl: an integer below 2^53, sent exactly
        local m = fmod(ms, 1000)
        ms = (ms - m) / 1000
        if m > 0 then ms = ms + 1 end
        redis.call('SET', key, out, 'PX', ms)
      else -- the least TTL, as the caller wrote it: no number to format
        redis.call('SET', key, out, 'PX', ttls)
      end
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
      local ms = cdiv(max(0, u - now), 1000) -- below 2^53: sent exactly
      if ms > ttl then redis.call('SET', key, out, 'PX', ms) else redis.call('SET', key, out, 'PX', ttls) end
    end
  end
  if from == NEVER then from = -1 end
  if full == NEVER then full = -1 end
  return struct.pack('<dddddd', flag, rem, lim, from, full, now)
end

-- A single check (ARGV: see the top of this file) under a plain policy, the commonest call, is
-- decided here, before the general engine's function is even made; main.lua does the rest.
local mode, cost, now, ttl = ARGV[1], nil, nil, nil
if mode ~= 'B' and mode ~= 'r' then
  cost, now, ttl = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
  if now == '' then
    local t = redis.call('TIME')
    now = t[1] * 1000000 + t[2]
  else
    now = tonumber(now)
  end
  if not (cost and now and ttl and cost % 1 == 0 and now % 1 == 0 and ttl % 1 == 0 and cost >= 1 and now >= 0 and
        ttl >= 1 and cost <= 2 ^ 53 and now <= 2 ^ 53 and ttl <= 2 ^ 53) then
    return redis.error_reply('NUMERUS_ARGS bad arguments for ' .. tostring(KEYS[1]))
  end
  local reply = fast(KEYS[1], mode, cost, now, ttl, ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]),
    tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10])
  if reply then return reply end
end
