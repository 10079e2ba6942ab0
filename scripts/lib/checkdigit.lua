--- checkdigit: check digits of product codes, ISBN-10 and IBAN-style numbers.
---   checkdigit.gs1(digits) -> 0..9           GS1 mod-10 check digit for the digits before it
---   checkdigit.gs1_valid(code) -> boolean    EAN-8/13, UPC-A, GTIN-14, SSCC... with their check digit
---   checkdigit.mod11(digits) -> "0".."9" or "X"   ISBN-10 check character (weights 10..2)
---   checkdigit.mod11_valid(isbn10) -> boolean
---   checkdigit.mod97(text) -> integer         ISO 7064 MOD 97-10 remainder of letters-as-numbers
---   checkdigit.iban_valid(iban) -> boolean    spaces ignored; remainder 1 after moving the country code
local checkdigit = {}

local function digits_only(s, api)
  if type(s) ~= "string" or not s:match("^%d+$") then
    error(api .. ": expected a string of digits, got " .. (type(s) == "string" and string.format("%q", s) or type(s)), 3)
  end
end

function checkdigit.gs1(s)
  digits_only(s, "checkdigit.gs1")
  local sum, weight = 0, 3
  for i = #s, 1, -1 do
    sum = sum + (s:byte(i) - 48) * weight
    weight = 4 - weight
  end
  return (10 - sum % 10) % 10
end

function checkdigit.gs1_valid(code)
  if type(code) ~= "string" or not code:match("^%d%d+$") then return false end
  return checkdigit.gs1(code:sub(1, -2)) == code:byte(-1) - 48
end

function checkdigit.mod11(s)
  digits_only(s, "checkdigit.mod11")
  local sum = 0
  for i = 1, #s do sum = sum + (s:byte(i) - 48) * (#s + 2 - i) end
  local c = (11 - sum % 11) % 11
  return c == 10 and "X" or tostring(c)
end

function checkdigit.mod11_valid(s)
  if type(s) ~= "string" or not s:match("^%d+[%dXx]$") then return false end
  return checkdigit.mod11(s:sub(1, -2)) == s:sub(-1):upper()
end

function checkdigit.mod97(s)
  if type(s) ~= "string" or not s:match("^[%w]+$") then
    error("checkdigit.mod97: expected letters and digits, got " .. tostring(s), 2)
  end
  local r = 0
  for c in s:upper():gmatch(".") do
    local v = c:match("%d") and tonumber(c) or (c:byte() - 55)
    if v >= 10 then r = (r * 100 + v) % 97 else r = (r * 10 + v) % 97 end
  end
  return r
end

function checkdigit.iban_valid(iban)
  if type(iban) ~= "string" then return false end
  local s = iban:gsub("%s", ""):upper()
  if not s:match("^%u%u%d%d[%w]+$") or #s < 15 or #s > 34 then return false end
  return checkdigit.mod97(s:sub(5) .. s:sub(1, 4)) == 1
end

return checkdigit
