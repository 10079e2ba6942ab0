-- GS1 element strings (GS1-128, GS1 DataBar, GS1 QR/DataMatrix; FNC1 as 0x1D) and GS1 Digital
-- Link URIs. Rules and vectors: ../shared/research/payloads.md §4 (GS1 General Specifications via
-- python-stdnum gs1_128, biip, gs1-syntax-engine). Payload type "gs1".
local scan = require "scan"
local url = require "url"
local checkdigit = require "checkdigit"
local urls = require "handlers.url"

local gs1 = {}
local GS = "\29"

-- AI titles (GS1 General Specifications; the common ones).
gs1.titles = {
  ["00"] = "SSCC", ["01"] = "GTIN", ["02"] = "CONTENT", ["10"] = "BATCH/LOT", ["11"] = "PROD DATE",
  ["12"] = "DUE DATE", ["13"] = "PACK DATE", ["15"] = "BEST BEFORE", ["16"] = "SELL BY", ["17"] = "USE BY",
  ["20"] = "VARIANT", ["21"] = "SERIAL", ["22"] = "CPV", ["235"] = "TPX", ["240"] = "ADDITIONAL ID",
  ["241"] = "CUST. PART No.", ["242"] = "MTO VARIANT", ["250"] = "SECONDARY SERIAL", ["251"] = "REF. TO SOURCE",
  ["253"] = "GDTI", ["254"] = "GLN EXTENSION COMPONENT", ["255"] = "GCN", ["30"] = "VAR. COUNT", ["37"] = "COUNT",
  ["400"] = "ORDER NUMBER", ["401"] = "GINC", ["402"] = "GSIN", ["403"] = "ROUTE", ["410"] = "SHIP TO LOC",
  ["411"] = "BILL TO", ["412"] = "PURCHASE FROM", ["413"] = "SHIP FOR LOC", ["414"] = "LOC No.", ["415"] = "PAY TO",
  ["416"] = "PROD/SERV LOC", ["417"] = "PARTY", ["420"] = "SHIP TO POST", ["421"] = "SHIP TO POST",
  ["422"] = "ORIGIN", ["7003"] = "EXPIRY TIME", ["8003"] = "GRAI", ["8004"] = "GIAI", ["8006"] = "ITIP",
  ["8007"] = "IBAN", ["8008"] = "PROD TIME", ["8012"] = "VERSION", ["8017"] = "GSRN - PROVIDER",
  ["8018"] = "GSRN - RECIPIENT", ["8020"] = "REF No.", ["8200"] = "PRODUCT URL", ["90"] = "INTERNAL",
}
local measure_titles = {
  ["310"] = "NET WEIGHT (kg)", ["311"] = "LENGTH (m)", ["312"] = "WIDTH (m)", ["313"] = "HEIGHT (m)",
  ["314"] = "AREA (m2)", ["315"] = "NET VOLUME (l)", ["316"] = "NET VOLUME (m3)", ["320"] = "NET WEIGHT (lb)",
  ["330"] = "GROSS WEIGHT (kg)", ["390"] = "AMOUNT", ["391"] = "AMOUNT", ["392"] = "PRICE", ["393"] = "PRICE",
}

-- The AI's length in digits, from its first two digits (GS1 General Specifications 3.2).
local function ai_length(two)
  local n = tonumber(two)
  if n <= 22 or n == 30 or n == 37 or n >= 90 then return 2 end
  if (n >= 23 and n <= 25) or (n >= 40 and n <= 42) or n == 71 then return 3 end
  return 4
end

-- Value lengths of the predefined-length AIs, keyed by the first two digits (lengths without the AI).
local fixed = { ["00"] = 18, ["01"] = 14, ["02"] = 14, ["03"] = 14, ["04"] = 16, ["11"] = 6, ["12"] = 6, ["13"] = 6,
                ["14"] = 6, ["15"] = 6, ["16"] = 6, ["17"] = 6, ["18"] = 6, ["19"] = 6, ["20"] = 2,
                ["31"] = 6, ["32"] = 6, ["33"] = 6, ["34"] = 6, ["35"] = 6, ["36"] = 6, ["41"] = 13 }

--- YYMMDD -> ISO date; DD = 00 means the last day of the month. The century puts the year
--- within 49 years before and 50 after `now_year` (GS1 General Specifications 7.12).
function gs1.date(v, now_year)
  local yy, mm, dd = v:match("^(%d%d)(%d%d)(%d%d)$")
  if not yy then return nil end
  now_year = now_year or tonumber(os.date("%Y"))
  local year = now_year - now_year % 100 + tonumber(yy)
  if year - now_year > 50 then year = year - 100 elseif now_year - year > 49 then year = year + 100 end
  local m, d = tonumber(mm), tonumber(dd)
  if m < 1 or m > 12 then return nil end
  local days = { 31, (year % 4 == 0 and (year % 100 ~= 0 or year % 400 == 0)) and 29 or 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
  if d == 0 then d = days[m] end
  if d > days[m] then return nil end
  return string.format("%04d-%02d-%02d", year, m, d)
end

local date_ais = { ["11"] = true, ["12"] = true, ["13"] = true, ["15"] = true, ["16"] = true, ["17"] = true }

-- One element with its title and decoded forms; problems go to `problems`.
local function element(ai, value, problems)
  local e = { ai = ai, value = value, title = gs1.titles[ai] or measure_titles[ai:sub(1, 3)] }
  if ai == "00" or ai == "01" or ai == "02" then
    if not value:match("^%d+$") or not checkdigit.gs1_valid(value) then
      problems[#problems + 1] = "(" .. ai .. ") " .. value .. ": check digit is wrong"
    end
  elseif date_ais[ai] then
    e.date = gs1.date(value)
    if not e.date then problems[#problems + 1] = "(" .. ai .. ") " .. value .. " is not a YYMMDD date" end
  elseif #ai == 4 and measure_titles[ai:sub(1, 3)] then
    local decimals = tonumber(ai:sub(4))
    local digits = value
    if ai:sub(1, 3) == "391" or ai:sub(1, 3) == "393" then
      e.currency = value:sub(1, 3)
      digits = value:sub(4)
    end
    if digits:match("^%d+$") then
      e.number = tonumber(digits) / 10 ^ decimals
      if decimals == 0 then e.number = math.tointeger(e.number) or e.number end
    else
      problems[#problems + 1] = "(" .. ai .. ") " .. value .. " is not a number"
    end
  elseif ai == "8003" then
    e.grai, e.serial = value:sub(1, 14), value:sub(15)
  end
  return e
end

--- Parses a GS1 element string (AIM prefix and leading/trailing FNC1 allowed; FNC1 as GS),
--- or the bracketed human-readable form "(01)...(10)...". Returns a payload or nil.
function gs1.parse_elements(s)
  s = s:gsub("^%][A-Za-z]%d", "")
  local problems, elements = {}, {}
  if s:sub(1, 1) == "(" then
    for ai, value in s:gmatch("%((%d%d%d?%d?)%)([^(]*)") do
      elements[#elements + 1] = element(ai, (value:gsub(GS, "")), problems)
    end
    if #elements == 0 then return nil end
  else
    s = s:gsub("^" .. GS, ""):gsub(GS .. "$", "")
    if not s:match("^%d%d") then return nil end
    local i = 1
    while i <= #s do
      if s:sub(i, i) == GS then i = i + 1 end
      local two = s:sub(i, i + 1)
      if not two:match("^%d%d$") then
        problems[#problems + 1] = "expected an AI at position " .. i
        break
      end
      local ai = s:sub(i, i + ai_length(two) - 1)
      local value
      if fixed[two] then
        value = s:sub(i + #ai, i + #ai + fixed[two] - 1)
        if #value < fixed[two] then problems[#problems + 1] = "(" .. ai .. ") is cut short" end
        i = i + #ai + fixed[two]
      else
        local stop = s:find(GS, i, true) or #s + 1   -- variable length ends at FNC1 or the end
        value = s:sub(i + #ai, stop - 1)
        i = stop
      end
      elements[#elements + 1] = element(ai, value, problems)
    end
  end
  local by_ai = {}
  for _, e in ipairs(elements) do by_ai[e.ai] = e.value end
  return { type = "gs1", elements = elements, ai = by_ai, element_string = gs1.hri(elements),
           valid = #problems == 0, problems = #problems > 0 and problems or nil }
end

--- "(01)...(10)..." for a list of elements.
function gs1.hri(elements)
  local t = {}
  for _, e in ipairs(elements) do t[#t + 1] = "(" .. e.ai .. ")" .. e.value end
  return table.concat(t)
end

-- {====================== Digital Link ======================

local primary = { ["01"] = { "22", "10", "21", "235" }, ["00"] = {}, ["253"] = {}, ["255"] = {}, ["414"] = { "254", "7040" },
                  ["8003"] = {}, ["8004"] = {}, ["8006"] = { "22", "10", "21" }, ["8010"] = { "8011" }, ["8017"] = { "8019" },
                  ["8018"] = { "8019" }, ["401"] = {}, ["402"] = {} }
local shortcodes = { gtin = "01", lot = "10", ser = "21", exp = "17" }

-- What a primary key's value must be (GS1 Digital Link 1.2 §4 and the General Specifications):
-- digits of the key's lengths with a right check digit, then the characters some keys allow.
-- A path whose would-be key fails this is not a Digital Link (https://example.com/2024/01/15/post).
-- `strict`: the check digit must be right too (not on id.gs1.org, whose links are Digital Links
-- whatever their digits: a wrong check digit is then a problem of the payload).
local function key_digits(value, lengths, rest, strict)
  local digits = value:match("^%d+")
  for _, n in ipairs(lengths) do
    if digits and #digits >= n and (not strict or checkdigit.gs1_valid(value:sub(1, n))) then
      local tail = value:sub(n + 1)
      if (rest == 0 and tail == "") or (rest > 0 and #tail <= rest and tail:match("^[%w%-%.%%_!\"&'()*+,/:;<=>?]*$")) then return true end
    end
  end
  return false
end
local function key_text(value, max) return #value >= 1 and #value <= max and value:match("^[%w%-%.%%_!\"&'()*+,/:;<=>?]+$") ~= nil end
local key_syntax = {
  ["01"] = function(v, strict) return v:match("^%d+$") ~= nil and (#v == 8 or #v == 12 or #v == 13 or #v == 14) and (not strict or checkdigit.gs1_valid(v)) end,
  ["00"] = function(v, strict) return key_digits(v, { 18 }, 0, strict) end,
  ["414"] = function(v, strict) return key_digits(v, { 13 }, 0, strict) end,
  ["253"] = function(v, strict) return key_digits(v, { 13 }, 17, strict) end,
  ["255"] = function(v, strict) return key_digits(v, { 13 }, 12, strict) and v:match("^%d+$") ~= nil end,
  ["8003"] = function(v, strict) return v:sub(1, 1) == "0" and key_digits(v:sub(2), { 13 }, 16, strict) end,
  ["8004"] = function(v) return key_text(v, 30) end,
  ["8006"] = function(v, strict) return v:match("^%d+$") ~= nil and #v == 18 and (not strict or checkdigit.gs1_valid(v:sub(1, 14))) end,
  ["8010"] = function(v) return key_text(v, 30) end,
  ["8017"] = function(v, strict) return key_digits(v, { 18 }, 0, strict) end,
  ["8018"] = function(v, strict) return key_digits(v, { 18 }, 0, strict) end,
  ["401"] = function(v) return key_text(v, 30) end,
  ["402"] = function(v, strict) return key_digits(v, { 17 }, 0, strict) end,
}

--- A GS1 Digital Link URI -> gs1 payload with `digital_link` (canonical, id.gs1.org) and
--- the URL's own warnings; nil when it has no primary key of the right syntax (a GTIN of 8,
--- 12, 13 or 14 digits with its check digit, ...): an ordinary URL is left to the url parser.
--- valid = false on bad qualifiers or their order.
function gs1.parse_digital_link(text)
  local u = url.parse(text)
  if not u or (u.scheme ~= "http" and u.scheme ~= "https") or not u.host then return nil end
  local segs = {}
  for seg in u.path:gmatch("[^/]+") do segs[#segs + 1] = seg end
  local start
  local strict = u.host:lower() ~= "id.gs1.org"
  for i = 1, #segs - 1 do
    local ai = shortcodes[segs[i]] or segs[i]
    if primary[ai] and key_syntax[ai](url.decode(segs[i + 1]) or segs[i + 1], strict) then start = i; break end
  end
  if not start then return nil end
  local problems, elements = {}, {}
  if (#segs - start + 1) % 2 == 1 then problems[#problems + 1] = "odd number of path segments after the primary key" end
  local pk = shortcodes[segs[start]] or segs[start]
  local allowed, last_rank = primary[pk], 0
  for i = start, #segs - 1, 2 do
    local ai, value = shortcodes[segs[i]] or segs[i], url.decode(segs[i + 1]) or segs[i + 1]
    if i > start then
      local rank
      for r, q in ipairs(allowed) do if q == ai then rank = r end end
      if not rank then problems[#problems + 1] = "(" .. ai .. ") is not a qualifier of (" .. pk .. ")"
      elseif rank <= last_rank then problems[#problems + 1] = "(" .. ai .. ") is out of order"
      else last_rank = rank end
    elseif ai == "01" and #value < 14 and value:match("^%d+$") then
      value = string.rep("0", 14 - #value) .. value  -- GTIN-8/12/13 padded to 14
    end
    elements[#elements + 1] = element(ai, value, problems)
  end
  local attributes = {}
  for k, v in pairs(u.query_params or {}) do
    local ai = shortcodes[k] or k
    if ai:match("^%d%d%d?%d?$") and type(v) == "string" then attributes[#attributes + 1] = { ai, v } end
  end
  table.sort(attributes, function(a, b) return a[1] < b[1] end)
  for _, a in ipairs(attributes) do elements[#elements + 1] = element(a[1], a[2], problems) end
  local path = {}
  local n_path = #elements - #attributes
  for i = 1, n_path do path[#path + 1] = "/" .. elements[i].ai .. "/" .. url.encode(elements[i].value) end
  local query = {}
  for _, a in ipairs(attributes) do query[#query + 1] = a[1] .. "=" .. url.encode(a[2]) end
  local by_ai = {}
  for _, e in ipairs(elements) do by_ai[e.ai] = e.value end
  return {
    type = "gs1", elements = elements, ai = by_ai, element_string = gs1.hri(elements),
    digital_link = "https://id.gs1.org" .. table.concat(path) .. (#query > 0 and "?" .. table.concat(query, "&") or ""),
    url = text, warnings = (urls.parse_url(text) or {}).warnings,
    valid = #problems == 0, problems = #problems > 0 and problems or nil,
  }
end

-- }===========================================================

-- DataBar of every kind carries GS1 data; the others when the decoder saw FNC1 first (`gs1`).
local always_gs1 = { ["databar"] = true, ["databar-exp"] = true, ["databar-limited"] = true,
                     ["databar-stacked"] = true, ["databar-exp-stacked"] = true }

scan.parser {
  name = "gs1",
  types = "gs1",
  symbologies = { "code128", "databar", "databar-exp", "databar-limited", "databar-stacked", "databar-exp-stacked",
                  "qrcode", "datamatrix", "aztec", "rmqr" },
  priority = 30,
  when = function(ev)
    -- GS1 data: DataBar always; Code 128, QR, DataMatrix, Aztec and rMQR when the decoder saw FNC1
    -- first; bracketed HRI text.
    local gs1_mod = false
    for _, m in ipairs(ev.modifiers) do if m == "gs1" then gs1_mod = true end end
    return always_gs1[ev.symbology] or gs1_mod or ev.text:match("^%(%d%d") ~= nil
  end,
  parse = function(ev) return gs1.parse_elements(ev.text) end,
}

scan.parser {
  name = "gs1-digital-link",
  types = "gs1",
  symbologies = { "qrcode" },
  match = "^[Hh][Tt][Tt][Pp][Ss]?://",
  priority = 15,
  parse = function(ev) return gs1.parse_digital_link(ev.text) end,
}

scan.summary {
  type = "gs1",
  format = function(p)
    local out = { "GS1 " .. p.element_string }
    for _, e in ipairs(p.elements) do
      local extra = e.date or (e.number and tostring(e.number)) or ""
      out[#out + 1] = string.format("  (%s) %s: %s%s", e.ai, e.title or "?", e.value, extra ~= "" and " = " .. extra or "")
    end
    for _, problem in ipairs(p.problems or {}) do out[#out + 1] = "problem: " .. problem end
    return table.concat(out, "\n")
  end,
}

return gs1
