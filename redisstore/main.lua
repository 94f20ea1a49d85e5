-- The main part of the numerus redisstore script: see plain.lua. The engine decides the checks the
-- plain path left, from the i-th on: all of them, for a policy that is not plain.

if K[i] then
  local check, parse, unpackPolicy = engine(cdiv, valid, fresh, counts, debit, status)
  local root, leaves -- a plain policy comes as text alone (see consts)
  if k == '-' then root, leaves = unpackPolicy(A[4], tail) else root, leaves = parse(pol) end
  if not root then return redis.error_reply('NUMERUS_ARGS bad policy for ' .. tostring(K[i])) end
  if not batch then return check(K[1], op, cost, now, ttl, pol, root, leaves) end
  while K[i] do
    local name = K[i]
    if each then each(i) end
    local done, res = pcall(check, name, 'a', cost, now, ttl, pol, root, leaves)
    if done then
      decided[i] = res
    elseif type(res) == 'table' and res.err then
      fail(i, res)
    elseif type(res) == 'string' then
      fail(i, { err = res })
    else
      fail(i, { err = 'NUMERUS_SCRIPT ' .. name .. ': ' .. tostring(res) })
    end
    i = i + 1
  end
end
failed[#failed + 1] = table.concat(decided)
return failed
