-- The main part of the numerus redisstore script: see fast.lua.

-- Main. Its locals are few, and the functions above have none of its locals as upvalues: making
-- a closure costs one binding per upvalue, on every call.

if mode == 'r' then
  redis.call('DEL', KEYS[1])
  return 1
end

if mode ~= 'B' then -- one check that fast left to the engine: its arguments are valid
  local check, parse = engine()
  local root, leaves, j = parse(ARGV, 6)
  if not root or ARGV[j] ~= nil then
    return redis.error_reply('NUMERUS_ARGS bad policy for ' .. tostring(KEYS[1]))
  end
  return check(KEYS[1], mode, cost, now, ttl, ARGV[5], root, leaves)
end

-- A batch: ARGV 'B', ttl, cost, time, pol, the tokens, then, unless every key has that cost and
-- time, each key's cost and time.
local function bad(what)
  return redis.error_reply('NUMERUS_ARGS bad ' .. what .. ' for ' .. tostring(KEYS[1]))
end

local function valid(x, lo) return x and x % 1 == 0 and x >= lo and x <= 2 ^ 53 end

local pol
ttl, pol = tonumber(ARGV[2]), ARGV[5]
local check, parse = engine()
local root, leaves, j = parse(ARGV, 6)
local each = #ARGV == j - 1 + 2 * #KEYS
if not root or not (each or #ARGV == j - 1) then return bad('policy') end
if not valid(ttl, 1) then return bad('arguments') end
local k, a, b, c, got -- the fast path's policy, if one leaf that is not a log, and its keys' strings
if root.i and root.k ~= 's' and root.k ~= 'b' then
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
      done, res = pcall(fast, name, 'a', cost, now, ttl, ARGV[2], pol, k, a, b, c, nil, pre)
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
