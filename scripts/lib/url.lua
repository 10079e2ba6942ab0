--- url: split a URL or URI into its parts, percent-decoding what should be decoded.
---   url.parse(text) -> { scheme, userinfo, host, port, path, query, query_params, fragment } | nil, "url: ..."
---     scheme and host are lowercased; port is an integer or nil; query is the raw string,
---     query_params a table of decoded key -> value (a repeated key keeps a list of values).
---   url.decode(text [, plus_as_space]) -> decoded text | nil, "url: bad escape at position N"
---   url.encode(text) -> text with everything but unreserved characters percent-encoded
local url = {}

function url.decode(s, plus_as_space)
  if type(s) ~= "string" then return nil, "url: expected a string, got " .. type(s) end
  if plus_as_space then s = s:gsub("+", " ") end
  local bad = s:find("%%%X") or s:find("%%%x%X") or s:find("%%%x?$")
  if bad then return nil, "url: bad percent escape at position " .. bad end
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

function url.encode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", c:byte()) end))
end

local function parse_query(q)
  local params = {}
  for pair in q:gmatch("[^&;]+") do
    local k, v = pair:match("^([^=]*)=(.*)$")
    k = url.decode(k or pair, true) or (k or pair)
    v = v and (url.decode(v, true) or v) or ""
    local old = params[k]
    if old == nil then params[k] = v
    elseif type(old) == "table" then old[#old + 1] = v
    else params[k] = { old, v } end
  end
  return params
end

function url.parse(s)
  if type(s) ~= "string" then return nil, "url: expected a string, got " .. type(s) end
  local scheme, rest = s:match("^(%a[%w+.-]*):(.*)$")
  if not scheme then return nil, "url: no scheme in '" .. s:sub(1, 40) .. "'" end
  local u = { scheme = scheme:lower() }
  local fragment
  rest, fragment = rest:match("^([^#]*)#?(.*)$")
  if s:find("#", 1, true) then u.fragment = url.decode(fragment) or fragment end
  local query
  rest, query = rest:match("^([^?]*)%??(.*)$")
  if s:find("?", 1, true) then
    u.query = query
    u.query_params = parse_query(query)
  end
  local authority, path = rest:match("^//([^/]*)(.*)$")
  if authority then
    local userinfo, hostport = authority:match("^(.*)@(.*)$")
    if userinfo then u.userinfo = url.decode(userinfo) or userinfo else hostport = authority end
    local host, port = hostport:match("^(%b[])(.*)$")  -- IPv6 literal
    if host then
      host = host:sub(2, -2)
    else
      host, port = hostport:match("^([^:]*)(.*)$")
    end
    if port ~= "" then
      local digits = port:match("^:(%d*)$")
      if not digits then return nil, "url: bad port in '" .. hostport .. "'" end
      u.port = tonumber(digits)
      if u.port and u.port > 65535 then return nil, "url: port " .. digits .. " out of range" end
    end
    u.host = (url.decode(host) or host):lower()
    u.path = path
  else
    u.path = rest
  end
  u.path = url.decode(u.path) or u.path
  return u
end

return url
