--- base64: RFC 4648 standard alphabet with padding.
---   base64.encode(bytes) -> string
---   base64.decode(text) -> bytes | nil, "base64: ..."   (whitespace ignored; url-safe -_ accepted)
local base64 = {}

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local enc, dec = {}, {}
for i = 1, 64 do
  local c = alphabet:sub(i, i)
  enc[i - 1] = c
  dec[c:byte()] = i - 1
end
dec[("-"):byte()] = 62
dec[("_"):byte()] = 63

function base64.encode(s)
  if type(s) ~= "string" then error("bad argument #1 to 'encode' (string expected, got " .. type(s) .. ")", 2) end
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    out[#out + 1] = enc[(n >> 18) & 63] .. enc[(n >> 12) & 63]
      .. (b and enc[(n >> 6) & 63] or "=") .. (c and enc[n & 63] or "=")
  end
  return table.concat(out)
end

function base64.decode(s)
  if type(s) ~= "string" then return nil, "base64: expected a string, got " .. type(s) end
  s = s:gsub("%s", "")
  local body = s:gsub("=+$", "")
  if #s - #body > 2 then return nil, "base64: too much padding" end
  if #body % 4 == 1 then return nil, "base64: truncated input (" .. #body .. " characters)" end
  local out, bits, nbits = {}, 0, 0
  for i = 1, #body do
    local v = dec[body:byte(i)]
    if v == nil then return nil, "base64: invalid character '" .. body:sub(i, i) .. "' at position " .. i end
    bits = (bits << 6) | v
    nbits = nbits + 6
    if nbits >= 8 then
      nbits = nbits - 8
      out[#out + 1] = string.char((bits >> nbits) & 0xFF)
    end
  end
  return table.concat(out)
end

return base64
