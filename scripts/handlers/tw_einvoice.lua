-- Taiwan e-invoices (電子發票證明聯): the two QR codes and the Code 39 barcode.
-- Spec: MOF «電子發票證明聯一維及二維條碼規格說明» v1.8; vectors and edge cases:
-- ../shared/research/payloads.md §1 (E1-E14 below refer to its §1.10).
--
-- Payloads:
--   tw-einvoice          one invoice, on the left code's record, with the right code's items
--   tw-einvoice-right    a right code: merged into an invoice (`merged_into`), or waiting for its left
--   tw-einvoice-barcode  the 19-character Code 39 barcode
local scan = require "scan"
local codec = require "codec"
local base64 = require "base64"
local url = require "url"

local einvoice = { window = 10 }  -- seconds within which codes of different frames pair up

--- Changes options: einvoice.configure { window = seconds }.
function einvoice.configure(opts)
  if opts.window ~= nil then
    assert(type(opts.window) == "number" and opts.window >= 0, "window must be a number of seconds")
    einvoice.window = opts.window
  end
end

-- {====================== Field rules ======================

--- UBN (統一編號) checksum: weights 1,2,1,2,1,2,4,1, digits of each product summed; valid when
--- the sum is divisible by 10, or by 5 (the relaxed MOF rule), or when the 7th digit is 7 and
--- sum + 1 is (python-stdnum tw/ubn.py; payloads.md §1.8).
function einvoice.ubn_valid(id)
  if type(id) ~= "string" or not id:match("^%d%d%d%d%d%d%d%d$") then return false end
  local weights = { 1, 2, 1, 2, 1, 2, 4, 1 }
  local sum = 0
  for i = 1, 8 do
    local p = (id:byte(i) - 48) * weights[i]
    sum = sum + p // 10 + p % 10
  end
  for _, divisor in ipairs { 10, 5 } do
    if sum % divisor == 0 then return true end
    if id:sub(7, 7) == "7" and (sum + 1) % divisor == 0 then return true end
  end
  return false
end

--- ROC date yyyMMdd -> ISO yyyy-mm-dd, or nil.
function einvoice.roc_date(s)
  local y, m, d = s:match("^(%d%d%d)(%d%d)(%d%d)$")
  if not y then return nil end
  y, m, d = tonumber(y) + 1911, tonumber(m), tonumber(d)
  if m < 1 or m > 12 or d < 1 then return nil end
  local days = { 31, (y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0)) and 29 or 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
  if d > days[m] then return nil end
  return string.format("%04d-%02d-%02d", y, m, d)
end

-- A decimal number from an item field ("35.00" -> 35.0, "25" -> 25), or nil.
local function decimal(s)
  s = s:match("^%s*(.-)%s*$")
  if not s:match("^%-?%d+$") and not s:match("^%-?%d*%.%d+$") and not s:match("^%-?%d+%.$") then return nil end
  return math.tointeger(tonumber(s)) or tonumber(s)
end

local encodings = { ["0"] = "big5", ["1"] = "utf-8", ["2"] = "base64", ["3"] = "utf-8-overseas" }

-- }===========================================================

-- {====================== Left code ======================

local LEFT = "^%u%u%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d"

-- E14: some sources hand over JSON-escaped text (\/ and \uXXXX). Undo that outside the
-- verification field, whose Base64 may hold '/' and '+' literally.
local function unescape_json(s)
  if not s:find("\\", 1, true) then return s end
  s = s:gsub("\\u(%x%x%x%x)", function(h) return utf8.char(tonumber(h, 16)) end)
  return (s:gsub("\\/", "/"))
end

--- Parses a left code's bytes. Returns a payload (valid or not) and the raw item bytes that
--- follow the encoding flag, or nil when the text is not a left code at all.
function einvoice.parse_left(bytes)
  if not bytes:match(LEFT) then return nil end
  local p = { type = "tw-einvoice", problems = {} }
  local problems = p.problems
  p.invoice_number = bytes:sub(1, 10)
  p.date = einvoice.roc_date(bytes:sub(11, 17))
  if not p.date then problems[#problems + 1] = "date " .. bytes:sub(11, 17) .. " is not a valid ROC yyyMMdd date" end
  if #bytes < 53 then
    problems[#problems + 1] = "left code has " .. #bytes .. " characters, shorter than its 77-character header"
    return p, ""
  end
  p.random_code = bytes:sub(18, 21)  -- four spaces on B2B invoices (spec 五.6)
  if not p.random_code:match("^%d%d%d%d$") and p.random_code ~= "    " then
    problems[#problems + 1] = "random code '" .. p.random_code .. "' is not 4 digits"
  end
  for _, f in ipairs { { "sales_amount", 22 }, { "total_amount", 30 } } do
    local hex = bytes:sub(f[2], f[2] + 7)
    if hex:match("^%x%x%x%x%x%x%x%x$") then
      p[f[1]] = tonumber(hex, 16)
    else
      problems[#problems + 1] = f[1] .. " '" .. hex .. "' is not 8 hex digits"
    end
  end
  p.buyer_id = bytes:sub(38, 45)
  p.seller_id = bytes:sub(46, 53)
  p.seller_id_valid = einvoice.ubn_valid(p.seller_id)
  if not p.buyer_id:match("^%d+$") then problems[#problems + 1] = "buyer id '" .. p.buyer_id .. "' is not 8 digits" end
  -- E4: the verification field is usually 24 characters, but not always, and the ':' before
  -- the custom area may be missing: take it up to the first ':' and peel off a trailing '*' run.
  local tail = bytes:sub(54)
  -- E14: percent-encoded text (decodeURIComponent'd by some parsers): the header is plain
  -- letters, digits and Base64, so only the separators give it away.
  if not tail:find(":", 1, true) and tail:find("%%3[Aa]") then tail = url.decode(tail) or tail end
  local colon = tail:find(":", 1, true)
  local verification = colon and tail:sub(1, colon - 1) or tail
  local rest = colon and tail:sub(colon + 1) or ""
  local stars = verification:match("(%*%*%*%*%*%*%*%*%*%*)$")
  local fields = {}
  if stars and #verification > 10 then
    verification = verification:sub(1, -11)
    fields[1] = stars
  end
  p.verification = verification
  -- E5: the custom area may hold data; the fields after it are counts, the flag, then items.
  local pos = 1
  while #fields < 4 do
    local c = rest:find(":", pos, true)
    if not c then
      if pos <= #rest then fields[#fields + 1] = rest:sub(pos) end
      pos = #rest + 2
      break
    end
    fields[#fields + 1] = rest:sub(pos, c - 1)
    pos = c + 1
  end
  p.custom_area = fields[1]
  p.item_count_in_codes = fields[2] and tonumber((fields[2]:gsub("%s", "")))
  p.item_count_total = fields[3] and tonumber((fields[3]:gsub("%s", "")))
  local flag = fields[4] and fields[4]:match("^%s*(%d)%s*$")
  p.encoding = flag and encodings[flag]
  if fields[4] and not p.encoding then problems[#problems + 1] = "encoding flag '" .. fields[4] .. "' is not 0-3" end
  return p, pos <= #rest and rest:sub(pos) or ""
end

-- }===========================================================

-- {====================== Items ======================

-- Decodes one code's item bytes per the invoice's own flag (E12: never guess).
local function decode_chunk(bytes, encoding, problems, which)
  if bytes == "" then return "" end
  if encoding == "big5" then
    local text, err = codec.decode(bytes, "cp950")
    if text then return text end
    problems[#problems + 1] = which .. " code: " .. err
    return codec.detect(bytes)
  elseif encoding == "base64" then
    local raw, err = base64.decode((bytes:gsub("%s+$", "")))
    if not raw then problems[#problems + 1] = which .. " code: " .. err; return "" end
    local text, uerr = codec.decode(raw, "utf-8")
    if text then return text end
    problems[#problems + 1] = which .. " code: Base64 content: " .. uerr
    return codec.detect(raw)
  else
    local text, err = codec.decode(bytes, "utf-8")
    if text then return text end
    problems[#problems + 1] = which .. " code: " .. err
    return codec.detect(bytes)
  end
end

--- Splits the joined item text into items (E1, E6-E10): name:quantity:price triples; a raw ':'
--- inside a name is put back while quantity or price is not a number; a last lone field is the
--- note (補充說明). Overseas invoices (flag 3) start with two amount fields.
function einvoice.parse_items(p, text)
  text = text:gsub("%s+$", "")            -- E3: padding
  local tokens = {}
  for t in (text .. ":"):gmatch("(.-):") do tokens[#tokens + 1] = t end
  local i = 1
  while tokens[i] == "" do i = i + 1 end   -- E2: '**:' joins leave empty tokens
  if p.encoding == "utf-8-overseas" then
    for _, f in ipairs { "overseas_sales_amount", "overseas_total_amount" } do
      local t = tokens[i] or ""
      if t:match("^%x%x%x%x%x%x%x%x%x%x$") then
        p[f] = tonumber(t:sub(1, 8), 16) + tonumber(t:sub(9, 10), 16) / 100
      else
        p.problems[#p.problems + 1] = f .. " '" .. t .. "' is not 10 hex digits"
      end
      i = i + 1
    end
  end
  local items = {}
  while i <= #tokens do
    local name, j = tokens[i], i + 1
    -- E9: merge tokens into the name until a numeric quantity and price follow it.
    while tokens[j] and tokens[j + 1] and not (decimal(tokens[j]) and decimal(tokens[j + 1])) do
      name = name .. ":" .. tokens[j]
      j = j + 1
    end
    if tokens[j] and tokens[j + 1] then
      items[#items + 1] = { name = name, quantity = decimal(tokens[j]), unit_price = decimal(tokens[j + 1]) }
      i = j + 2
      while tokens[i] == "" and i <= #tokens do i = i + 1 end
    else
      local note = table.concat(tokens, ":", i)
      if note ~= "" then p.note = note end
      break
    end
  end
  p.items = items
end

-- }===========================================================

-- {====================== Pairing ======================

local function is_right(text) return text:sub(1, 2) == "**" end

-- Codes of other frames waiting for their partner: { event time, bytes, source } lists.
local pending_rights, recent_lefts = {}, {}

--- Forgets codes waiting for their partner (tests; a new batch).
function einvoice.reset()
  pending_rights, recent_lefts = {}, {}
end

local function within_window(t0, t1) return math.abs(t1 - t0) <= einvoice.window end

local function take_pending_right(now)
  for i = #pending_rights, 1, -1 do
    local r = pending_rights[i]
    if within_window(r.time, now) then
      table.remove(pending_rights, i)
      return r
    end
  end
end

-- The right code among the siblings that belongs to this left code: the nearest one to its
-- right (E11: zbar reports the right code first; pair by content and place, not order).
local function sibling_right(ev)
  local best, best_gap
  local lb = ev.bbox
  for _, s in ipairs(ev.siblings) do
    if s.symbology == "qrcode" and is_right(s.text) then
      local gap = s.bbox.x - (lb.x + lb.width)
      if lb.width == 0 then gap = 0 end      -- no geometry (simulated): first right code wins
      if gap >= -lb.width // 2 and (not best_gap or gap < best_gap) then best, best_gap = s, gap end
    end
  end
  return best
end

--- Builds the invoice from a left code's bytes and its right code's bytes (or nil).
function einvoice.build(left_bytes, right_bytes)
  local p, items_left = einvoice.parse_left(left_bytes)
  if not p then return nil end
  local problems = p.problems
  -- A QR code holds at most 2953 bytes: anything longer did not come from an invoice printer.
  if #left_bytes > 2953 or (right_bytes and #right_bytes > 2953) then
    problems[#problems + 1] = "longer than a QR code can hold (2953 bytes)"
    p.items, p.complete, p.valid = {}, false, false
    return p
  end
  local right_chunk = right_bytes and right_bytes:sub(3) or ""
  if p.encoding == "base64" then
    -- Each code's chunk is Base64 on its own; decode, then join (spec 貳.四 example).
    einvoice.parse_items(p, decode_chunk(items_left, "base64", problems, "left")
      .. decode_chunk(right_chunk, "base64", problems, "right"))
  elseif p.encoding then
    -- A record may be cut anywhere, even inside a multi-byte character: join bytes first.
    local text = decode_chunk(items_left .. right_chunk, p.encoding, problems, right_bytes and "joined" or "left")
    einvoice.parse_items(p, unescape_json(text))
  else
    p.items = {}
  end
  p.right_code_seen = right_bytes ~= nil
  local n = p.item_count_in_codes or 0
  p.complete = right_bytes ~= nil or (n > 0 and #p.items >= n)
  if not p.invoice_number:match("^%u%u%d%d%d%d%d%d%d%d$") then
    problems[#problems + 1] = "invoice number '" .. p.invoice_number .. "' is not 2 letters and 8 digits"
  end
  p.valid = #problems == 0
  if p.valid then p.problems = nil end
  return p
end

scan.parser {
  name = "tw-einvoice",
  types = "tw-einvoice",
  symbologies = { "qrcode" },
  match = LEFT,
  priority = 60,
  parse = function(ev)
    local right = sibling_right(ev)
    local right_bytes = right and right.bytes
    if not right_bytes then
      local r = take_pending_right(ev.time_ms / 1000)
      right_bytes = r and r.bytes
    end
    local p = einvoice.build(ev.bytes, right_bytes)
    if p and not p.complete then
      recent_lefts[#recent_lefts + 1] = { time = ev.time_ms / 1000, bytes = ev.bytes, invoice_number = p.invoice_number }
      if #recent_lefts > 16 then table.remove(recent_lefts, 1) end
    end
    return p
  end,
}

scan.parser {
  name = "tw-einvoice-right",
  types = "tw-einvoice-right",
  symbologies = { "qrcode" },
  match = "^%*%*",
  priority = 60,
  parse = function(ev)
    local p = { type = "tw-einvoice-right", continuation = ev.text:sub(3) }
    -- Same frame: the left code's record holds the invoice (the nearest left code to its left).
    local best, best_gap
    for _, s in ipairs(ev.siblings) do
      if s.symbology == "qrcode" and s.text:match(LEFT) then
        local gap = ev.bbox.x - (s.bbox.x + s.bbox.width)
        if ev.bbox.width == 0 then gap = 0 end
        if not best_gap or math.abs(gap) < best_gap then best, best_gap = s, math.abs(gap) end
      end
    end
    if best then
      p.merged_into = best.text:sub(1, 10)
      return p
    end
    -- A left code seen earlier within the window: complete it here.
    for i = #recent_lefts, 1, -1 do
      local l = recent_lefts[i]
      if within_window(l.time, ev.time_ms / 1000) then
        table.remove(recent_lefts, i)
        p.merged_into = l.invoice_number
        p.invoice = einvoice.build(l.bytes, ev.bytes)
        return p
      end
    end
    -- Otherwise wait for a left code in a later frame.
    pending_rights[#pending_rights + 1] = { time = ev.time_ms / 1000, bytes = ev.bytes }
    if #pending_rights > 16 then table.remove(pending_rights, 1) end
    p.waiting = true
    return p
  end,
}

-- }===========================================================

-- {====================== Barcode ======================

--- The 19-character Code 39 barcode: period (ROC year + even month), invoice number, random code.
scan.parser {
  name = "tw-einvoice-barcode",
  types = "tw-einvoice-barcode",
  symbologies = { "code39" },
  match = "^%d%d%d%d%d%u%u%d%d%d%d%d%d%d%d%d%d%d%d$",
  priority = 60,
  parse = function(ev)
    local period, number, random = ev.text:match("^(%d%d%d%d%d)(%u%u%d%d%d%d%d%d%d%d)(%d%d%d%d)$")
    local year, month = tonumber(period:sub(1, 3)) + 1911, tonumber(period:sub(4, 5))
    local p = { type = "tw-einvoice-barcode", period = period, invoice_number = number, random_code = random }
    if month >= 2 and month <= 12 and month % 2 == 0 then
      p.year, p.months, p.valid = year, { month - 1, month }, true
    else
      p.valid, p.problems = false, { "period month " .. period:sub(4, 5) .. " is not an even month 02-12" }
    end
    return p
  end,
}

-- }===========================================================


-- {====================== Text for people ======================

local textwidth = require "textwidth"

local function money(n)
  if n == nil then return "?" end
  return math.type(n) == "integer" and tostring(n) or string.format("%.2f", n)
end

scan.summary {
  type = "tw-einvoice",
  format = function(p)
    local out = {}
    out[#out + 1] = string.format("Taiwan e-invoice %s  %s  random %s  seller %s%s  buyer %s",
      p.invoice_number, p.date or "?", p.random_code or "?", p.seller_id or "?",
      p.seller_id_valid == false and " (check fails)" or "", p.buyer_id or "?")
    out[#out + 1] = string.format("total %s (untaxed %s), %d of %s items in the codes%s", money(p.total_amount),
      money(p.sales_amount), #(p.items or {}), tostring(p.item_count_total or "?"), p.complete and "" or ", right code not seen")
    local width = 4
    for _, it in ipairs(p.items or {}) do width = math.max(width, textwidth.width((it.name:gsub("[\r\n]+", " ")))) end
    for _, it in ipairs(p.items or {}) do
      out[#out + 1] = string.format("  %s  %8s x %8s", textwidth.pad((it.name:gsub("[\r\n]+", " ")), width),
        money(it.quantity), money(it.unit_price))
    end
    for _, problem in ipairs(p.problems or {}) do out[#out + 1] = "problem: " .. problem end
    return table.concat(out, "\n")
  end,
}

scan.summary {
  type = "tw-einvoice-right",
  format = function(p)
    if p.merged_into and p.invoice then return "right code of e-invoice " .. p.merged_into .. " (completes it)" end
    if p.merged_into then return "right code of e-invoice " .. p.merged_into end
    return "right code of an e-invoice, waiting for its left code"
  end,
}

scan.summary {
  type = "tw-einvoice-barcode",
  format = function(p)
    local months = p.months and string.format("%d-%02d/%02d", p.year, p.months[1], p.months[2]) or p.period
    return string.format("Taiwan e-invoice barcode %s, period %s, random %s", p.invoice_number, months, p.random_code)
  end,
}

-- }===========================================================

return einvoice
