--- hex: bytes <-> hexadecimal text.
---   hex.encode(bytes [, upper]) -> "a4c3..."
---   hex.decode(text) -> bytes | nil, "hex: ..."   (spaces and colons ignored, either case)
local hex = {}

function hex.encode(s, upper)
  if type(s) ~= "string" then error("bad argument #1 to 'encode' (string expected, got " .. type(s) .. ")", 2) end
  local fmt = upper and "%02X" or "%02x"
  return (s:gsub(".", function(c) return string.format(fmt, c:byte()) end))
end

function hex.decode(s)
  if type(s) ~= "string" then return nil, "hex: expected a string, got " .. type(s) end
  s = s:gsub("[%s:]", "")
  if #s % 2 == 1 then return nil, "hex: odd number of digits (" .. #s .. ")" end
  local bad = s:find("%X")
  if bad then return nil, "hex: invalid digit '" .. s:sub(bad, bad) .. "' at position " .. bad end
  return (s:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end))
end

return hex
