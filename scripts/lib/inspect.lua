--- inspect: a readable, deterministic rendering of any Lua value (keys sorted, cycles marked).
---   inspect(value [, { depth = 8 }]) -> string
local function is_ident(k) return type(k) == "string" and k:match("^[%a_][%w_]*$") end

local function render(v, depth, max, seen)
  local t = type(v)
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if t ~= "table" then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth >= max then return "{...}" end
  seen[v] = true
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = render(v[i], depth + 1, max, seen) end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) == type(b) and (type(a) == "number" or type(a) == "string") then return a < b end
    return type(a) < type(b)
  end)
  for _, k in ipairs(keys) do
    local key = is_ident(k) and k or "[" .. render(k, depth + 1, max, seen) .. "]"
    parts[#parts + 1] = key .. " = " .. render(v[k], depth + 1, max, seen)
  end
  seen[v] = nil
  return "{" .. table.concat(parts, ", ") .. "}"
end

return function(v, opts)
  return (render(v, 0, (opts and opts.depth) or 8, {}))
end
