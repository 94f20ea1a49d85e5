-- The main part of the numerus redisstore script: see fast.lua.

-- Main. Its locals are few, and the functions above have none of its locals as upvalues: making
-- a closure costs one binding per upvalue, on every call.

if mode == 'r' then
  redis.call('DEL', KEYS[1])
  return 1
end

local pol = ARGV[3]
local check, parse = engine()
local root, leaves = parse(pol)
if not root then return redis.error_reply('NUMERUS_ARGS bad policy for ' .. tostring(KEYS[1])) end

if mode ~= 'B' then -- one check that fast left to the engine
  return check(KEYS[1], mode, cost, now, ttl, pol, root, leaves)
end

-- A batch: ARGV 'B', ttls, pol, consts, then no call, one, or each key's.
local each = #ARGV == 4 + #KEYS
if not (each or #ARGV <= 5) then
  return redis.error_reply('NUMERUS_ARGS bad arguments for ' .. tostring(KEYS[1]))
end
local got -- the keys' strings, for the fast path: false for a key that is absent or not a string
if kind ~= '-' then got = redis.call('MGET', unpack(KEYS)) end
local out, failed, seen, server = {}, {}, {}, nil
local function fail(n, e) -- the n-th check failed with the error reply e
  out[n] = '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
  failed[#failed + 1] = n
  failed[#failed + 1] = e
end
local cost1, now1 = cost, now
for n, name in ipairs(KEYS) do
  cost, now = cost1, now1
  if each then cost, now = struct.unpack('<dd', ARGV[4 + n]) end
  if now < 0 then
    if not server then
      local t = redis.call('TIME')
      server = t[1] * 1000000 + t[2]
    end
    now = server
  end
  local done, res = true, nil
  if got then
    local pre = nil -- its string, or nil to read it: it is absent, not a string, or was checked before
    if not seen[name] then pre = got[n] or nil end
    seen[name] = true
    done, res = pcall(fast, name, 'a', cost, now, ttl, ARGV[2], pol, kind, a, b, c, d, e, pre)
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
failed[#failed + 1] = table.concat(out)
return failed
