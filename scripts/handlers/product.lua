-- Product codes: EAN-13, EAN-8, UPC-A, UPC-E, ITF-14 and the ISBN/ISSN forms of EAN-13.
-- Rules and vectors: ../shared/research/payloads.md §3. Payload type "product".
local scan = require "scan"
local checkdigit = require "checkdigit"

local product = {}

-- GS1 prefixes of 3 digits -> the issuing Member Organisation's ISO country code, or what the
-- range is for. payloads.md §3.4 has the verified excerpt (from postgres contrib/isn EAN13.h
-- and zxing EANManufacturerOrgSupport); the rest follows GS1's published prefix list.
local ranges = {
  { 0, 19, "US" }, { 20, 29, nil, "restricted circulation (in-store)" }, { 30, 39, "US" },
  { 40, 49, nil, "restricted circulation (company internal)" }, { 50, 59, nil, "coupons" }, { 60, 139, "US" },
  { 200, 299, nil, "restricted circulation (variable measure, in-store)" },
  { 300, 379, "FR" }, { 380, 380, "BG" }, { 383, 383, "SI" }, { 385, 385, "HR" }, { 387, 387, "BA" }, { 389, 389, "ME" },
  { 400, 440, "DE" }, { 450, 459, "JP" }, { 460, 469, "RU" }, { 470, 470, "KG" }, { 471, 471, "TW" }, { 474, 474, "EE" },
  { 475, 475, "LV" }, { 476, 476, "AZ" }, { 477, 477, "LT" }, { 478, 478, "UZ" }, { 479, 479, "LK" }, { 480, 480, "PH" },
  { 481, 481, "BY" }, { 482, 482, "UA" }, { 484, 484, "MD" }, { 485, 485, "AM" }, { 486, 486, "GE" }, { 487, 487, "KZ" },
  { 489, 489, "HK" }, { 490, 499, "JP" }, { 500, 509, "GB" }, { 520, 521, "GR" }, { 528, 528, "LB" }, { 529, 529, "CY" },
  { 530, 530, "AL" }, { 531, 531, "MK" }, { 535, 535, "MT" }, { 539, 539, "IE" }, { 540, 549, "BE" }, { 560, 560, "PT" },
  { 569, 569, "IS" }, { 570, 579, "DK" }, { 590, 590, "PL" }, { 594, 594, "RO" }, { 599, 599, "HU" }, { 600, 601, "ZA" },
  { 603, 603, "GH" }, { 608, 608, "BH" }, { 609, 609, "MU" }, { 611, 611, "MA" }, { 613, 613, "DZ" }, { 616, 616, "KE" },
  { 619, 619, "TN" }, { 622, 622, "EG" }, { 625, 625, "JO" }, { 626, 626, "IR" }, { 628, 628, "SA" }, { 629, 629, "AE" },
  { 640, 649, "FI" }, { 690, 699, "CN" }, { 700, 709, "NO" }, { 729, 729, "IL" }, { 730, 739, "SE" }, { 750, 750, "MX" },
  { 754, 755, "CA" }, { 759, 759, "VE" }, { 760, 769, "CH" }, { 770, 771, "CO" }, { 773, 773, "UY" }, { 775, 775, "PE" },
  { 778, 779, "AR" }, { 780, 780, "CL" }, { 786, 786, "EC" }, { 789, 790, "BR" }, { 800, 839, "IT" }, { 840, 849, "ES" },
  { 850, 850, "CU" }, { 858, 858, "SK" }, { 859, 859, "CZ" }, { 860, 860, "RS" }, { 865, 865, "MN" }, { 868, 869, "TR" },
  { 870, 879, "NL" }, { 880, 880, "KR" }, { 884, 884, "KH" }, { 885, 885, "TH" }, { 888, 888, "SG" }, { 890, 890, "IN" },
  { 893, 893, "VN" }, { 896, 896, "PK" }, { 899, 899, "ID" }, { 900, 919, "AT" }, { 930, 939, "AU" }, { 940, 949, "NZ" },
  { 950, 950, nil, "GS1 Global Office" }, { 955, 955, "MY" }, { 958, 958, "MO" },
  { 977, 977, nil, "serial publications (ISSN)" }, { 978, 979, nil, "books (ISBN)" }, { 980, 980, nil, "refund receipts" },
  { 981, 984, nil, "coupons" }, { 990, 999, nil, "coupons" },
}

--- The country (ISO 3166 alpha-2) or the issuer's purpose for a GTIN-13's first 3 digits.
function product.prefix(gtin13)
  local p = tonumber(gtin13:sub(1, 3))
  for _, r in ipairs(ranges) do
    if p >= r[1] and p <= r[2] then return r[3], r[4] end
  end
  return nil, nil
end

--- UPC-E (8 digits, number system 0 or 1) expanded to UPC-A (12 digits), or nil.
function product.upce_to_upca(s)
  local ns, d, check = s:match("^([01])(%d%d%d%d%d%d)(%d)$")
  if not ns then return nil end
  local d1, d2, d3, d4, d5, d6 = d:match("(%d)(%d)(%d)(%d)(%d)(%d)")
  local body
  if d6 == "0" or d6 == "1" or d6 == "2" then body = d1 .. d2 .. d6 .. "0000" .. d3 .. d4 .. d5
  elseif d6 == "3" then body = d1 .. d2 .. d3 .. "00000" .. d4 .. d5
  elseif d6 == "4" then body = d1 .. d2 .. d3 .. d4 .. "00000" .. d5
  else body = d1 .. d2 .. d3 .. d4 .. d5 .. "0000" .. d6 end
  return ns .. body .. check
end

--- ISBN-13 (978...) -> ISBN-10, or nil for 979 (which has none).
function product.isbn10(isbn13)
  if isbn13:sub(1, 3) ~= "978" then return nil end
  local body = isbn13:sub(4, 12)
  return body .. checkdigit.mod11(body)
end

--- ISSN from a 977 EAN-13: 7 digits + the mod-11 check character.
function product.issn(ean13)
  local body = ean13:sub(4, 10)
  local sum = 0
  for i = 1, 7 do sum = sum + (body:byte(i) - 48) * (9 - i) end
  local c = (11 - sum % 11) % 11
  return body:sub(1, 4) .. "-" .. body:sub(5, 7) .. (c == 10 and "X" or tostring(c))
end

--- The suggested retail price an EAN-5 add-on carries on books (zxing UPCEANExtension5Support).
function product.book_price(addon)
  if addon == "90000" then return { text = "no suggested price" } end
  if addon == "99991" then return { currency = nil, amount = 0, text = "complimentary" } end
  if addon == "99990" then return { text = "used" } end
  local currencies = { ["0"] = "GBP", ["5"] = "USD" }
  local currency = currencies[addon:sub(1, 1)]
  local amount = tonumber(addon:sub(2)) / 100
  return { currency = currency, amount = amount }
end

--- The payload for a product code's digits as a given symbology, or nil when it is not one.
function product.parse(digits, symbology, addon)
  if not digits:match("^%d+$") then return nil end
  local p = { type = "product", symbology = symbology, code = digits }
  local problems = {}
  local gtin
  if symbology == "upce" then
    local upca = product.upce_to_upca(digits)
    if not upca then return nil end
    p.upca = upca
    gtin = upca
  elseif symbology == "isbn10" then
    if not checkdigit.mod11_valid(digits) then problems[#problems + 1] = "ISBN-10 check character is wrong" end
    local body = "978" .. digits:sub(1, 9)
    gtin = body .. checkdigit.gs1(body)
  elseif #digits == 8 or #digits == 12 or #digits == 13 or #digits == 14 then
    gtin = digits
  else
    return nil
  end
  if symbology == "i25" and #digits ~= 14 then return nil end  -- only ITF-14 is a GTIN
  p.gtin = string.rep("0", 14 - #gtin) .. gtin
  if not checkdigit.gs1_valid(gtin) then problems[#problems + 1] = "check digit is wrong: expected " .. checkdigit.gs1(gtin:sub(1, -2)) end
  if #gtin ~= 8 then
    local gtin13 = p.gtin:sub(2)
    if #gtin == 14 then gtin13 = p.gtin:sub(2) end
    local country, issuer = product.prefix(gtin13)
    p.country, p.issuer = country, issuer
    local prefix = tonumber(gtin13:sub(1, 3))
    if (prefix >= 20 and prefix <= 29) or (prefix >= 40 and prefix <= 49) or (prefix >= 200 and prefix <= 299) then
      p.restricted = true
    end
    if gtin13:sub(1, 3) == "978" or gtin13:sub(1, 3) == "979" then
      if gtin13:sub(1, 4) == "9790" then p.ismn = gtin13 else p.isbn13 = gtin13; p.isbn10 = product.isbn10(gtin13) end
    elseif gtin13:sub(1, 3) == "977" then
      p.issn = product.issn(gtin13)
    end
  else
    p.issuer = "GTIN-8 (EAN-8)"
  end
  if addon then
    p.addon = addon
    if #addon == 5 and (p.isbn13 or p.ismn) then p.price = product.book_price(addon) end
    if #addon == 2 and p.issn then p.issue = tonumber(addon) end
  end
  p.valid = #problems == 0
  p.problems = #problems > 0 and problems or nil
  return p
end

scan.parser {
  name = "product",
  types = "product",
  symbologies = { "ean13", "ean8", "upca", "upce", "isbn13", "isbn10", "i25" },
  priority = 10,
  parse = function(ev) return product.parse(ev.text, ev.symbology, ev.addon) end,
}

scan.summary {
  type = "product",
  format = function(p)
    local parts = { "GTIN " .. p.gtin }
    if p.country then parts[#parts + 1] = "from the GS1 " .. p.country .. " range" end
    if p.issuer then parts[#parts + 1] = p.issuer end
    if p.isbn13 then parts[#parts + 1] = "ISBN " .. p.isbn13 .. (p.isbn10 and " (ISBN-10 " .. p.isbn10 .. ")" or "") end
    if p.issn then parts[#parts + 1] = "ISSN " .. p.issn end
    if p.price and p.price.amount then parts[#parts + 1] = string.format("price %s %.2f", p.price.currency or "", p.price.amount) end
    if p.restricted then parts[#parts + 1] = "restricted circulation" end
    if not p.valid then parts[#parts + 1] = "INVALID: " .. table.concat(p.problems, "; ") end
    return table.concat(parts, ", ")
  end,
}

return product
