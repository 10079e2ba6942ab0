-- Payment QR codes: EPC/SEPA credit transfer (BCD), Swiss QR-bill (SPC), EMVCo merchant-presented
-- QR (TLV with CRC-16/CCITT-FALSE), and Taiwan's TWQR payment URIs.
-- Rules and vectors: ../shared/research/payloads.md §5.1-5.3.
local scan = require "scan"
local codec = require "codec"
local checkdigit = require "checkdigit"
local url = require "url"

local payment = {}

local function lines(text)
  local t = {}
  for l in (text:gsub("\r\n", "\n") .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  if t[#t] == "" then t[#t] = nil end
  return t
end

-- ISO 11649 creditor reference (RF + 2 check digits + up to 21 characters): MOD 97 = 1.
local function rf_valid(ref)
  local s = ref:gsub("%s", ""):upper()
  if not s:match("^RF%d%d[%w]+$") or #s > 25 then return false end
  return checkdigit.mod97(s:sub(5) .. s:sub(1, 4)) == 1
end

-- Swiss QR reference: 27 digits, recursive mod 10 check digit in the last place.
local function qrr_valid(ref)
  if not ref:match("^%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d$") then return false end
  local table10 = { 0, 9, 4, 6, 8, 2, 7, 1, 3, 5 }
  local carry = 0
  for i = 1, 26 do carry = table10[(carry + ref:byte(i) - 48) % 10 + 1] end
  return (10 - carry) % 10 == ref:byte(27) - 48
end

-- {====================== EPC (GiroCode) ======================

local epc_charsets = { ["1"] = "utf-8", ["2"] = "iso-8859-1", ["3"] = "ISO-8859-2", ["4"] = "ISO-8859-4",
                       ["5"] = "ISO-8859-5", ["6"] = "ISO-8859-7", ["7"] = "ISO-8859-10", ["8"] = "iso-8859-15" }

function payment.epc(bytes)
  if bytes:sub(1, 4) ~= "BCD\n" and bytes:sub(1, 5) ~= "BCD\r\n" then return nil end
  local raw = lines(bytes)
  local charset = epc_charsets[raw[3] or ""]
  local problems = {}
  local text = bytes
  if not charset then
    problems[#problems + 1] = "character set '" .. tostring(raw[3]) .. "' is not 1-8"
  elseif charset ~= "utf-8" then
    -- Decode by the code's own line 3 (zbar misreads Latin-1 as Big5: payloads.md §5.1).
    local names = { ["iso-8859-1"] = "latin1", ["iso-8859-15"] = "iso-8859-15" }
    local decoded = names[charset] and codec.decode(bytes, names[charset])
    if decoded then text = decoded else problems[#problems + 1] = "cannot decode character set " .. charset end
  end
  local l = lines(text)
  local p = { type = "epc", version = l[2], charset = charset, bic = l[5], name = l[6], iban = l[7],
              purpose = l[9], reference = l[10], text = l[11], information = l[12] }
  if l[2] ~= "001" and l[2] ~= "002" then problems[#problems + 1] = "version must be 001 or 002" end
  if l[4] ~= "SCT" then problems[#problems + 1] = "identification must be SCT" end
  if #l > 12 then problems[#problems + 1] = "more than 12 lines" end
  for k, v in pairs(p) do if v == "" then p[k] = nil end end
  if p.bic and not (#p.bic == 8 or #p.bic == 11) then problems[#problems + 1] = "BIC must be 8 or 11 characters" end
  if not p.bic and l[2] == "001" then problems[#problems + 1] = "BIC is required in version 001" end
  if not p.name or #p.name > 70 then problems[#problems + 1] = "beneficiary name must be 1-70 characters" end
  if not p.iban or not checkdigit.iban_valid(p.iban) then problems[#problems + 1] = "IBAN fails its mod-97 check" end
  local amount = l[8] or ""
  if amount ~= "" then
    local cur, value = amount:match("^(%u%u%u)(%d+%.?%d?%d?)$")
    local n = value and tonumber(value)
    if cur ~= "EUR" or not n or n < 0.01 or n > 999999999.99 then
      problems[#problems + 1] = "amount '" .. amount .. "' must be EUR0.01 to EUR999999999.99"
    else
      p.currency, p.amount = cur, n
    end
  end
  if p.reference and p.text then problems[#problems + 1] = "reference and text are mutually exclusive" end
  if p.reference and #p.reference > 35 then problems[#problems + 1] = "reference longer than 35 characters" end
  if p.text and #p.text > 140 then problems[#problems + 1] = "text longer than 140 characters" end
  if p.reference and p.reference:sub(1, 2) == "RF" then p.reference_valid = rf_valid(p.reference) end
  p.valid = #problems == 0
  p.problems = #problems > 0 and problems or nil
  return p
end

-- }============================================================

-- {====================== Swiss QR-bill ======================

-- An address of 7 lines: S (structured) has street, number, postcode and town; K (combined) has
-- two free address lines where street and number would be, postcode and town empty. K is no
-- longer allowed since the implementation guidelines of November 2025: it is flagged.
local function address(l, i, role, problems)
  local a
  if l[i] == "K" then
    a = { type = "K", name = l[i + 1], address_line1 = l[i + 2], address_line2 = l[i + 3], country = l[i + 6] }
    problems[#problems + 1] = role .. ": a combined address (type K) is no longer allowed since November 2025; use S"
  else
    a = { type = l[i], name = l[i + 1], street = l[i + 2], number = l[i + 3], postcode = l[i + 4], town = l[i + 5], country = l[i + 6] }
  end
  if (a.name or "") == "" then return nil end
  for k, v in pairs(a) do if v == "" then a[k] = nil end end
  return a
end

-- The amount: digits with at most two decimals after a point, 0.01 to 999999999.99 (no
-- thousands separators, exponents or hex, which tonumber would take).
local function swiss_amount(text)
  local whole, decimals = text:match("^(%d+)%.?(%d*)$")
  if not whole or #decimals > 2 or (text:find(".", 1, true) and #decimals == 0) or #whole > 9 then return nil end
  local n = tonumber(whole .. "." .. (decimals ~= "" and decimals or "0"))
  return n and n >= 0.01 and n or nil
end

function payment.swiss(text)
  if text:sub(1, 4) ~= "SPC\n" and text:sub(1, 5) ~= "SPC\r\n" then return nil end
  local l = lines(text)
  local problems = {}
  if #l < 31 then problems[#problems + 1] = "a QR-bill has at least 31 lines, this one " .. #l end
  local p = { type = "swiss-qr-bill", version = l[2], iban = l[4], creditor = address(l, 5, "creditor", problems), currency = l[20],
              debtor = address(l, 21, "debtor", problems), reference_type = l[28], reference = l[29] ~= "" and l[29] or nil,
              message = l[30] ~= "" and l[30] or nil, billing_information = l[32] ~= "" and l[32] or nil }
  if l[2] ~= "0200" then problems[#problems + 1] = "version must be 0200" end
  if l[31] ~= "EPD" then problems[#problems + 1] = "trailer EPD missing on line 31" end
  if not p.iban or not checkdigit.iban_valid(p.iban) or not p.iban:match("^[CL][HI]") then
    problems[#problems + 1] = "IBAN must be a valid CH or LI IBAN"
  end
  if l[19] and l[19] ~= "" then
    p.amount = swiss_amount(l[19])
    if not p.amount then
      p.amount_text = l[19]
      problems[#problems + 1] = "amount " .. l[19] .. " is not an amount: digits, a point and at most 2 decimals, 0.01 to 999999999.99"
    end
  end
  if p.currency ~= "CHF" and p.currency ~= "EUR" then problems[#problems + 1] = "currency must be CHF or EUR" end
  local iid = p.iban and tonumber(p.iban:gsub("%s", ""):sub(5, 9))
  local qr_iban = iid and iid >= 30000 and iid <= 31999
  if p.reference_type == "QRR" then
    if not qr_iban then problems[#problems + 1] = "QRR references need a QR-IBAN" end
    p.reference_valid = p.reference ~= nil and qrr_valid(p.reference)
    if not p.reference_valid then problems[#problems + 1] = "QR reference fails its mod-10 check" end
  elseif p.reference_type == "SCOR" then
    p.reference_valid = p.reference ~= nil and rf_valid(p.reference)
    if not p.reference_valid then problems[#problems + 1] = "creditor reference fails its mod-97 check" end
  elseif p.reference_type ~= "NON" then
    problems[#problems + 1] = "reference type must be QRR, SCOR or NON"
  end
  if qr_iban and p.reference_type ~= "QRR" then problems[#problems + 1] = "a QR-IBAN needs a QRR reference" end
  p.valid = #problems == 0
  p.problems = #problems > 0 and problems or nil
  return p
end

-- }============================================================

-- {====================== EMVCo merchant-presented QR ======================

--- CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) as 4 uppercase hex digits.
function payment.crc16(s)
  local crc = 0xFFFF
  for i = 1, #s do
    crc = crc ~ (s:byte(i) << 8)
    for _ = 1, 8 do
      crc = (crc & 0x8000 ~= 0) and (((crc << 1) ~ 0x1021) & 0xFFFF) or ((crc << 1) & 0xFFFF)
    end
  end
  return string.format("%04X", crc)
end

-- ID (2 digits) + LEN (2 decimal digits) + value, repeated. Returns a list or nil, reason.
local function tlv(s)
  local out, i = {}, 1
  while i <= #s do
    local id, len = s:match("^(%d%d)(%d%d)", i)
    if not id then return nil, "bad TLV header at position " .. i end
    len = tonumber(len)
    local value = s:sub(i + 4, i + 3 + len)
    if #value < len then return nil, "field " .. id .. " is cut short" end
    out[#out + 1] = { id = id, value = value }
    i = i + 4 + len
  end
  return out
end

local currencies = { ["764"] = "THB", ["840"] = "USD", ["986"] = "BRL", ["116"] = "KHR", ["458"] = "MYR", ["702"] = "SGD",
                     ["704"] = "VND", ["360"] = "IDR", ["356"] = "INR", ["901"] = "TWD", ["978"] = "EUR", ["156"] = "CNY",
                     ["344"] = "HKD", ["392"] = "JPY", ["410"] = "KRW", ["608"] = "PHP" }

function payment.emv(text)
  if text:sub(1, 6) ~= "000201" then return nil end
  local fields, err = tlv(text)
  if not fields then return { type = "emv-merchant", valid = false, problems = { err } } end
  local p = { type = "emv-merchant", fields = {}, merchant_accounts = {} }
  local problems = {}
  for _, f in ipairs(fields) do
    local n = tonumber(f.id)
    p.fields[#p.fields + 1] = { id = f.id, value = f.value }
    if f.id == "01" then p.initiation = f.value == "12" and "dynamic" or (f.value == "11" and "static" or f.value)
    elseif n >= 26 and n <= 51 then
      local sub = tlv(f.value)
      local account = { id = f.id }
      if sub then
        account.subfields = {}
        for _, s in ipairs(sub) do
          if s.id == "00" then account.gui = s.value else account.subfields[#account.subfields + 1] = { id = s.id, value = s.value } end
        end
      else
        account.value = f.value
      end
      p.merchant_accounts[#p.merchant_accounts + 1] = account
    elseif n >= 2 and n <= 25 then p.merchant_accounts[#p.merchant_accounts + 1] = { id = f.id, value = f.value }
    elseif f.id == "52" then p.merchant_category = f.value
    elseif f.id == "53" then p.currency_code = f.value; p.currency = currencies[f.value]
    elseif f.id == "54" then p.amount = tonumber(f.value)
    elseif f.id == "58" then p.country = f.value
    elseif f.id == "59" then p.merchant_name = f.value
    elseif f.id == "60" then p.merchant_city = f.value
    elseif f.id == "62" then
      local sub = tlv(f.value)
      if sub then
        p.additional = {}
        for _, s in ipairs(sub) do p.additional[#p.additional + 1] = { id = s.id, value = s.value } end
      end
    elseif f.id == "63" then p.crc = f.value
    end
  end
  if fields[#fields].id ~= "63" then
    problems[#problems + 1] = "CRC (63) must be the last field"
  else
    local expected = payment.crc16(text:sub(1, #text - 4))
    p.crc_valid = p.crc:upper() == expected
    if not p.crc_valid then problems[#problems + 1] = "CRC " .. p.crc .. " does not match " .. expected end
  end
  p.valid = #problems == 0
  p.problems = #problems > 0 and problems or nil
  return p
end

-- }============================================================

-- {====================== TWQR ======================

--- TWQRP://<name>/158/<01 purchase | 02 transfer>/V1?D1=...&D5=<bank>&D6=<account>&...
function payment.twqr(text)
  local s = text
  if s:upper():sub(1, 10) == "TWQRP%3A%2" then s = url.decode(s) or s end
  if s:upper():sub(1, 8) ~= "TWQRP://" then return nil end
  local name, country, kind, version, query = s:match("^[Tt][Ww][Qq][Rr][Pp]://([^/]*)/(%d+)/(%d%d)/([^?]*)%??(.*)$")
  if not name then return { type = "twqr", valid = false, problems = { "not TWQRP://<name>/158/<type>/<version>" } } end
  local q = (url.parse("x:?" .. query) or {}).query_params or {}
  local decoded_name = url.decode(name) or name
  if decoded_name:lower():sub(1, 4) == "xn--" then
    decoded_name = require("punycode").decode(decoded_name:sub(5)) or decoded_name
  end
  return {
    type = "twqr", name = decoded_name, country = country, kind = kind == "01" and "purchase" or (kind == "02" and "transfer" or kind),
    version = version, amount_field = q.D1, bank = q.D5, account = q.D6, fields = q, valid = country == "158",
    problems = country ~= "158" and { "country code " .. country .. " is not 158 (Taiwan)" } or nil,
  }
end

-- }============================================================

scan.parser {
  name = "payment",
  types = { "emv-merchant", "epc", "swiss-qr-bill", "twqr" },
  symbologies = { "qrcode" },
  match = "^[BS0Tt][CP0Ww]",   -- BCD, SPC, 000201, TWQRP
  priority = 20,
  parse = function(ev)
    return payment.epc(ev.bytes) or payment.swiss(ev.text) or payment.emv(ev.text) or payment.twqr(ev.text)
  end,
}

local function money(currency, amount, unreadable)
  if unreadable then return "amount " .. unreadable .. " (not an amount)" end
  return amount and string.format("%s %.2f", currency or "", amount) or "open amount"
end
scan.summary { type = "epc", format = function(p) return "SEPA transfer " .. money(p.currency, p.amount) .. " to " .. tostring(p.name) .. ", " .. tostring(p.iban) .. (p.valid and "" or " (INVALID)") end }
scan.summary { type = "swiss-qr-bill", format = function(p) return "Swiss QR-bill " .. money(p.currency, p.amount, p.amount_text) .. " to " .. (p.creditor and p.creditor.name or "?") .. ", " .. tostring(p.iban) .. (p.valid and "" or " (INVALID)") end }
scan.summary { type = "emv-merchant", format = function(p) return "EMV merchant QR " .. (p.merchant_name or "?") .. ", " .. money(p.currency or p.currency_code, p.amount) .. (p.valid and "" or " (INVALID)") end }
scan.summary { type = "twqr", format = function(p) return "TWQR " .. tostring(p.kind) .. " " .. tostring(p.name) .. (p.bank and ", bank " .. p.bank or "") end }

return payment
