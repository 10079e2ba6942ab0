--- json: encode Lua values as JSON text and decode JSON text into Lua values.
---   json.encode(value [, { sort_keys = true, indent = "  " }]) -> string   (raises on cycles, functions, NaN)
---   json.decode(text) -> value | nil, "json: ... at byte N"
---   json.null     a sentinel that encodes as null and that decode returns for null
---   json.array(t) marks a table as an array, so an empty one encodes as []
local json = {}

json.null = setmetatable({}, { __tostring = function() return "json.null" end, __name = "json.null" })
local array_mt = { __jsontype = "array" }

function json.array(t)
  return setmetatable(t or {}, array_mt)
end

local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local mt = getmetatable(t)
  if mt == array_mt then return true end
  local n = #t
  if n == 0 then return false end
  local count = 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
    count = count + 1
  end
  return count == n
end

local function encode(v, opts, seen, indent, depth)
  local t = type(v)
  if v == nil or v == json.null then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then error("json.encode: cannot encode " .. tostring(v), 0) end
    if math.type(v) == "integer" then return tostring(v) end
    return string.format("%.17g", v)
  end
  if t == "string" then return encode_string(v) end
  if t ~= "table" then error("json.encode: cannot encode a " .. t, 0) end
  if seen[v] then error("json.encode: cycle in table", 0) end
  seen[v] = true
  local nl, pad, inner = "", "", ""
  if indent then nl = "\n"; pad = string.rep(indent, depth); inner = string.rep(indent, depth + 1) end
  local parts = {}
  if is_array(v) then
    for i = 1, #v do parts[i] = inner .. encode(v[i], opts, seen, indent, depth + 1) end
    seen[v] = nil
    if #parts == 0 then return "[]" end
    return "[" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "]"
  end
  local keys = {}
  for k in pairs(v) do
    if type(k) ~= "string" and type(k) ~= "number" then error("json.encode: object keys must be strings or numbers", 0) end
    keys[#keys + 1] = k
  end
  if opts.sort_keys then table.sort(keys, function(a, b) return tostring(a) < tostring(b) end) end
  for i, k in ipairs(keys) do
    parts[i] = inner .. encode_string(tostring(k)) .. (indent and ": " or ":") .. encode(v[k], opts, seen, indent, depth + 1)
  end
  seen[v] = nil
  if #parts == 0 then return "{}" end
  return "{" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "}"
end

function json.encode(v, opts)
  opts = opts or {}
  return encode(v, opts, {}, opts.indent, 0)
end

-- {====================== decode ======================

local function decode_error(pos, msg) error({ json = "json: " .. msg .. " at byte " .. pos }, 0) end

local function skip(s, pos)
  return (s:find("[^ \t\r\n]", pos)) or #s + 1
end

local decode_value

local function utf8_of(cp) return utf8.char(cp) end

local function decode_string(s, pos)
  local out, i = {}, pos + 1
  while true do
    local j = s:find('["\\%c]', i)
    if not j then decode_error(pos, "unterminated string") end
    out[#out + 1] = s:sub(i, j - 1)
    local c = s:sub(j, j)
    if c == '"' then return table.concat(out), j + 1 end
    if c ~= "\\" then decode_error(j, "control character in string") end
    local e = s:sub(j + 1, j + 1)
    local simple = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
    if simple[e] then
      out[#out + 1] = simple[e]
      i = j + 2
    elseif e == "u" then
      local hex = s:match("^%x%x%x%x", j + 2)
      if not hex then decode_error(j, "bad \\u escape") end
      local cp = tonumber(hex, 16)
      i = j + 6
      if cp >= 0xD800 and cp <= 0xDBFF then
        local lo = s:match("^\\u(%x%x%x%x)", i)
        local lcp = lo and tonumber(lo, 16)
        if not lcp or lcp < 0xDC00 or lcp > 0xDFFF then decode_error(j, "unpaired surrogate") end
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lcp - 0xDC00)
        i = i + 6
      elseif cp >= 0xDC00 and cp <= 0xDFFF then
        decode_error(j, "unpaired surrogate")
      end
      out[#out + 1] = utf8_of(cp)
    else
      decode_error(j, "bad escape \\" .. e)
    end
  end
end

function decode_value(s, pos, depth)
  if depth > 200 then decode_error(pos, "nesting too deep") end
  pos = skip(s, pos)
  local c = s:sub(pos, pos)
  if c == "{" then
    local obj = {}
    pos = skip(s, pos + 1)
    if s:sub(pos, pos) == "}" then return obj, pos + 1 end
    while true do
      if s:sub(pos, pos) ~= '"' then decode_error(pos, "expected a string key") end
      local k
      k, pos = decode_string(s, pos)
      pos = skip(s, pos)
      if s:sub(pos, pos) ~= ":" then decode_error(pos, "expected ':'") end
      local v
      v, pos = decode_value(s, pos + 1, depth + 1)
      obj[k] = v
      pos = skip(s, pos)
      local d = s:sub(pos, pos)
      if d == "}" then return obj, pos + 1 end
      if d ~= "," then decode_error(pos, "expected ',' or '}'") end
      pos = skip(s, pos + 1)
    end
  elseif c == "[" then
    local arr = json.array({})
    pos = skip(s, pos + 1)
    if s:sub(pos, pos) == "]" then return arr, pos + 1 end
    while true do
      local v
      v, pos = decode_value(s, pos, depth + 1)
      arr[#arr + 1] = v
      pos = skip(s, pos)
      local d = s:sub(pos, pos)
      if d == "]" then return arr, pos + 1 end
      if d ~= "," then decode_error(pos, "expected ',' or ']'") end
      pos = pos + 1
    end
  elseif c == '"' then
    return decode_string(s, pos)
  elseif s:find("^true", pos) then return true, pos + 4
  elseif s:find("^false", pos) then return false, pos + 5
  elseif s:find("^null", pos) then return json.null, pos + 4
  else
    local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    if num and num ~= "" and num ~= "-" then
      local v = math.tointeger(tonumber(num)) or tonumber(num)
      if v == nil then decode_error(pos, "bad number") end
      return v, pos + #num
    end
    decode_error(pos, c == "" and "unexpected end of input" or "unexpected character '" .. c .. "'")
  end
end

function json.decode(s)
  if type(s) ~= "string" then return nil, "json: expected a string, got " .. type(s) end
  local ok, v, pos = pcall(decode_value, s, 1, 0)
  if not ok then
    if type(v) == "table" and v.json then return nil, v.json end
    error(v, 0)
  end
  pos = skip(s, pos)
  if pos <= #s then return nil, "json: trailing characters at byte " .. pos end
  return v
end

-- }====================================================

return json
