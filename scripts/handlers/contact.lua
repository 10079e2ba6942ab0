-- Wi-Fi credentials, contacts (MECARD, BIZCARD, vCard 2.1/3.0/4.0) and calendar events (VEVENT).
-- Rules and vectors: ../shared/research/payloads.md §5.4 and §5.5 (zxing result parsers and tests).
local scan = require "scan"
local urls = require "handlers.url"

local contact = {}
local fields = urls.fields  -- KEY:value; fields with backslash escapes

-- {====================== Wi-Fi ======================

--- WIFI:T:<auth>;S:<ssid>;P:<password>;H:<true|false>;; with EAP fields E, PH2, A, I, and
--- WPA3's R (transition disable, hex bits: 1 = WPA3-Personal only) and K (SAE-PK public key).
function contact.wifi(text)
  if text:sub(1, 5):upper() ~= "WIFI:" then return nil end
  local f = fields(text:sub(6))
  if not f.S or type(f.S) ~= "string" then return nil end
  local auth = f.T
  if auth == nil or auth == "" then auth = "nopass" end
  local p = { type = "wifi", ssid = f.S, password = (f.P ~= "" and f.P) or nil, auth = auth }
  -- H is "hidden" when it is true/false; older codes put the EAP phase 2 method there.
  if f.H == "true" or f.H == "false" then
    p.hidden = f.H == "true"
  elseif f.H and f.H ~= "" and not f.PH2 then
    f.PH2 = f.H
  end
  if f.E or f.PH2 or f.A or f.I then
    p.eap = { method = f.E, phase2 = f.PH2, anonymous_identity = f.A, identity = f.I }
  end
  if type(f.R) == "string" and f.R ~= "" then
    p.transition_disable = f.R
    local bits = tonumber(f.R, 16)
    if bits then p.wpa3_only = bits & 1 == 1 end
  end
  if type(f.K) == "string" and f.K ~= "" then p.sae_public_key = f.K end
  return p
end

-- }====================================================

-- {====================== MECARD and BIZCARD ======================

local function list(v) if v == nil then return nil end return type(v) == "table" and v or { v } end
-- MECARD and BIZCARD addresses are free text: { text = ... } like a vCard address without parts.
local function text_addresses(v)
  local out = list(v)
  if not out then return nil end
  for i, a in ipairs(out) do out[i] = { text = a } end
  return out
end

function contact.mecard(text)
  if text:sub(1, 7):upper() ~= "MECARD:" then return nil end
  local f = fields(text:sub(8))
  if not f.N then return nil end
  local name = type(f.N) == "table" and f.N[1] or f.N
  local last, first = name:match("^([^,]*),(.*)$")  -- MECARD writes "last,first"
  if last then name = (first .. " " .. last):match("^%s*(.-)%s*$") end
  return { type = "contact", format = "mecard", name = name, phones = list(f.TEL), emails = list(f.EMAIL),
           urls = list(f.URL), addresses = text_addresses(f.ADR), org = f.ORG, birthday = f.BDAY, note = f.NOTE }
end

function contact.bizcard(text)
  if text:sub(1, 8):upper() ~= "BIZCARD:" then return nil end
  local f = fields(text:sub(9))
  if not f.N and not f.X then return nil end
  local phones = {}
  for _, k in ipairs { "B", "M", "F" } do if f[k] then phones[#phones + 1] = f[k] end end
  local name = ((f.N or "") .. " " .. (f.X or "")):match("^%s*(.-)%s*$")
  return { type = "contact", format = "bizcard", name = name, org = f.C, title = f.T, addresses = text_addresses(f.A),
           phones = #phones > 0 and phones or nil, emails = list(f.E) }
end

-- }================================================================

-- {====================== vCard and iCalendar lines ======================

-- Content lines: unfold (CRLF + space/tab), join QUOTED-PRINTABLE soft breaks, split
-- NAME;PARAMS:value. Returns { {name=, params={KEY=value,...}, value=} ... }.
local function content_lines(text)
  text = text:gsub("\r\n", "\n"):gsub("\r", "\n")
  text = text:gsub("\n[ \t]", "")
  local lines = {}
  local pending
  for raw in (text .. "\n"):gmatch("(.-)\n") do
    if pending then raw = pending .. raw; pending = nil end
    local head, value = raw:match("^([^:]*):(.*)$")
    if head then
      local qp = head:upper():find("QUOTED%-PRINTABLE")
      if qp and value:sub(-1) == "=" then
        pending = raw:sub(1, -2)
      else
        local parts = {}
        for p in (head .. ";"):gmatch("(.-);") do parts[#parts + 1] = p end
        local params = {}
        for i = 2, #parts do
          local k, v = parts[i]:match("^([^=]*)=(.*)$")
          if k then params[k:upper()] = v else params.TYPE = (params.TYPE and params.TYPE .. "," or "") .. parts[i] end
        end
        if qp then value = value:gsub("=(%x%x)", function(h) return string.char(tonumber(h, 16)) end) end
        lines[#lines + 1] = { name = parts[1]:upper(), params = params, value = value }
      end
    end
  end
  return lines
end

-- vCard/iCalendar escapes: \n \N \; \, \\ .
local function unescape(v)
  return (v:gsub("\\(.)", function(c)
    if c == "n" or c == "N" then return "\n" end
    return c
  end))
end

-- Splits a structured value on unescaped ';', then unescapes each part.
local function components(v)
  local out, buf, i = {}, {}, 1
  while i <= #v do
    local c = v:sub(i, i)
    if c == "\\" and i < #v then buf[#buf + 1] = v:sub(i, i + 1); i = i + 2
    elseif c == ";" then out[#out + 1] = unescape(table.concat(buf)); buf = {}; i = i + 1
    else buf[#buf + 1] = c; i = i + 1 end
  end
  out[#out + 1] = unescape(table.concat(buf))
  return out
end

local function join_nonempty(parts, sep)
  local t = {}
  for _, p in ipairs(parts) do if p ~= "" then t[#t + 1] = p end end
  return table.concat(t, sep)
end

function contact.vcard(text)
  if not text:upper():find("^%s*BEGIN:VCARD") then return nil end
  local p = { type = "contact", format = "vcard" }
  local function add(key, v)
    p[key] = p[key] or {}
    table.insert(p[key], v)
  end
  for _, l in ipairs(content_lines(text)) do
    if l.name == "VERSION" then p.version = l.value
    elseif l.name == "FN" then p.name = unescape(l.value)
    elseif l.name == "N" and not p.name then
      local c = components(l.value)  -- family;given;additional;prefix;suffix
      p.name = join_nonempty({ c[4] or "", c[2] or "", c[3] or "", c[1] or "", c[5] or "" }, " ")
    elseif l.name == "TEL" then
      -- vCard 4 writes TEL;VALUE=uri:tel:+1-555-0100 (RFC 6350 6.4.1): the number is the URI's path.
      local number = unescape(l.value)
      if (l.params.VALUE or ""):lower() == "uri" or number:lower():find("^tel:") then number = number:gsub("^[Tt][Ee][Ll]:", "") end
      add("phones", { number = number, type = l.params.TYPE and l.params.TYPE:lower():gsub('"', "") })
    elseif l.name == "EMAIL" then add("emails", unescape(l.value))
    elseif l.name == "URL" then add("urls", unescape(l.value))
    elseif l.name == "ADR" then
      -- post office box; extended address; street; locality; region; postal code; country (RFC 6350 6.3.1)
      local c = components(l.value)
      local a = { text = join_nonempty(c, " "), type = l.params.TYPE and l.params.TYPE:lower():gsub('"', "") }
      for i, key in ipairs { "po_box", "extended", "street", "locality", "region", "postal_code", "country" } do
        if c[i] and c[i] ~= "" then a[key] = c[i] end
      end
      add("addresses", a)
    elseif l.name == "ORG" then p.org = join_nonempty(components(l.value), " ")
    elseif l.name == "TITLE" then p.title = unescape(l.value)
    elseif l.name == "NOTE" then p.note = unescape(l.value)
    elseif l.name == "BDAY" then p.birthday = l.value
    end
  end
  return p
end

-- DTSTART/DTEND: 20080504T123456Z (UTC), 20080504T123456 (local or TZID=...), 20080504 (date).
local function when(l)
  local v = l.value
  local y, mo, d, rest = v:match("^(%d%d%d%d)(%d%d)(%d%d)(.*)$")
  if not y then return { value = v } end
  local out = { value = v }
  local h, mi, s, z = rest:match("^T(%d%d)(%d%d)(%d%d)(Z?)$")
  if h then
    out.date_time = string.format("%s-%s-%sT%s:%s:%s%s", y, mo, d, h, mi, s, z)
    out.time_zone = z == "Z" and "UTC" or l.params.TZID
  elseif rest == "" then
    out.date = string.format("%s-%s-%s", y, mo, d)
    out.all_day = true
  end
  return out
end

--- ISO 8601 duration (P1DT2H3M4S, P2W) -> seconds, or nil.
function contact.duration_seconds(v)
  local sign, body = v:match("^([+-]?)P(.+)$")
  if not body then return nil end
  local total = 0
  local weeks = body:match("^(%d+)W$")
  if weeks then total = tonumber(weeks) * 604800
  else
    local date, time = body:match("^([^T]*)T?(.*)$")
    local days = date:match("^(%d+)D$")
    if date ~= "" and not days then return nil end
    total = (tonumber(days) or 0) * 86400
    for n, unit in time:gmatch("(%d+)([HMS])") do
      total = total + tonumber(n) * ({ H = 3600, M = 60, S = 1 })[unit]
    end
  end
  return sign == "-" and -total or total
end

function contact.event(text)
  local up = text:upper()
  local b = up:find("BEGIN:VEVENT", 1, true)
  if not b or not text:find("[\r\n]") then return nil end  -- a VEVENT on one line is not an event
  local p = { type = "event" }
  local inside = false
  for _, l in ipairs(content_lines(text)) do
    if l.name == "BEGIN" and l.value:upper() == "VEVENT" then inside = true
    elseif l.name == "END" and l.value:upper() == "VEVENT" then break
    elseif inside then
      if l.name == "SUMMARY" then p.summary = unescape(l.value)
      elseif l.name == "DESCRIPTION" then p.description = unescape(l.value)
      elseif l.name == "LOCATION" then p.location = unescape(l.value)
      elseif l.name == "DTSTART" then p.start = when(l)
      elseif l.name == "DTEND" then p["end"] = when(l)
      elseif l.name == "DURATION" then p.duration = l.value; p.duration_seconds = contact.duration_seconds(l.value)
      elseif l.name == "ORGANIZER" then p.organizer = l.value:gsub("^[Mm][Aa][Ii][Ll][Tt][Oo]:", "")
      elseif l.name == "GEO" then
        local lat, lon = l.value:match("^([-+]?[%d.]+);([-+]?[%d.]+)$")
        p.latitude, p.longitude = tonumber(lat), tonumber(lon)
      end
    end
  end
  if not p.start then return nil end
  return p
end

-- }=======================================================================

scan.parser {
  name = "contact",
  types = { "contact", "event", "wifi" },
  symbologies = { "qrcode", "sqcode" },
  match = "^%s*[WMBwmb]",  -- WIFI:, MECARD:, BIZCARD:, BEGIN:
  priority = 10,
  parse = function(ev)
    local t = ev.text
    return contact.wifi(t) or contact.mecard(t) or contact.bizcard(t) or contact.vcard(t) or contact.event(t)
  end,
}

scan.summary {
  type = "wifi",
  format = function(p)
    return string.format("Wi-Fi network %s (%s%s)%s", p.ssid, p.auth, p.hidden and ", hidden" or "", p.password and ", with password" or "")
  end,
}
scan.summary {
  type = "contact",
  format = function(p)
    local parts = { p.name or "?" }
    if p.org then parts[#parts + 1] = p.org end
    for _, t in ipairs(p.phones or {}) do parts[#parts + 1] = type(t) == "table" and t.number or t end
    for _, e in ipairs(p.emails or {}) do parts[#parts + 1] = e end
    return "contact: " .. table.concat(parts, ", ")
  end,
}
scan.summary {
  type = "event",
  format = function(p)
    local start = p.start and (p.start.date_time or p.start.date or p.start.value) or "?"
    return "event: " .. (p.summary or "?") .. " at " .. start .. (p.start and p.start.time_zone and " " .. p.start.time_zone or "")
      .. (p.location and ", " .. p.location or "")
  end,
}

return contact
