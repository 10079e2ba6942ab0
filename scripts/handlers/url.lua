-- URLs and URIs in QR codes: web links with safety warnings, and the action URIs
-- (mailto/MATMSG, tel, sms/SMSTO/MMSTO, geo, MEBKM bookmarks).
-- Rules and vectors: ../shared/research/payloads.md §2 and §5.5.
local scan = require "scan"
local url = require "url"
local punycode = require "punycode"
local json = require "json"

local urls = {}

-- Schemes that run code or reach local files when opened (CodeQL js/incomplete-url-scheme-check).
local dangerous = { javascript = true, data = true, vbscript = true, file = true, blob = true }

-- Well-known link shorteners: the real target is hidden until followed.
urls.shorteners = {}
for _, h in ipairs { "bit.ly", "bitly.com", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "cutt.ly",
                     "rebrand.ly", "tiny.cc", "shorturl.at", "rb.gy", "s.id", "v.gd", "t.ly", "reurl.cc", "lihi.cc",
                     "lihi1.com", "pse.is", "ppt.cc", "qrco.de", "bl.ink", "short.io", "t.me" } do
  urls.shorteners[h] = true
end

-- Scripts of the code points in a host label, for the homograph check.
local function script_of(cp)
  if cp < 0x80 then return (cp >= 0x30 and cp <= 0x39 or cp == 0x2D) and "common" or "latin" end
  if cp <= 0x24F or (cp >= 0x1E00 and cp <= 0x1EFF) then return "latin" end
  if cp >= 0x370 and cp <= 0x3FF then return "greek" end
  if cp >= 0x400 and cp <= 0x52F then return "cyrillic" end
  if (cp >= 0x4E00 and cp <= 0x9FFF) or (cp >= 0x3400 and cp <= 0x4DBF) then return "han" end
  if cp >= 0x3040 and cp <= 0x30FF then return "kana" end
  if cp >= 0xAC00 and cp <= 0xD7AF then return "hangul" end
  return "other"
end

-- Cyrillic and Greek letters that look like Latin ones (UTS #39 confusables, the usual suspects).
local confusable = {}
for _, c in utf8.codes("аеорсуххіјӏԁԛԝѕүһԍвкмнтАВЕКМНОРСТУХІЈЅοραντικχυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ") do confusable[c] = true end

--- True when a host label mixes Latin with Cyrillic or Greek, or is all Cyrillic/Greek letters that
--- look Latin under an ASCII top-level domain (whole-script confusable, e.g. аррӏе.com).
function urls.homograph(host_unicode)
  local labels = {}
  for label in host_unicode:gmatch("[^%.]+") do labels[#labels + 1] = label end
  local tld_ascii = labels[#labels] and not labels[#labels]:find("[\128-\255]")
  for i, label in ipairs(labels) do
    local scripts, all_confusable, letters = {}, true, 0
    for _, cp in utf8.codes(label) do
      local s = script_of(cp)
      if s ~= "common" then
        scripts[s] = true
        letters = letters + 1
        if not confusable[cp] then all_confusable = false end
      end
    end
    local lookalike = scripts.cyrillic or scripts.greek
    if lookalike and scripts.latin then return true end
    if lookalike and not scripts.latin and all_confusable and letters > 0 and tld_ascii and i < #labels then return true end
  end
  return false
end

local function ip_host(host)
  if host:match("^%d+%.%d+%.%d+%.%d+$") or host:find(":", 1, true) then return true end
  return host:match("^0x%x+$") ~= nil or host:match("^%d+$") ~= nil  -- 2130706433, 0x7f000001
end

--- The url payload with warnings, or nil when the text is not a URL with a host.
function urls.parse_url(text)
  -- Strip what browsers ignore before the scheme: controls, spaces, leading %20s.
  local cleaned = text:gsub("^%%20", ""):gsub("[%z\1-\32]", "")
  local scheme = cleaned:match("^(%a[%w+.-]*):")
  if scheme and dangerous[scheme:lower()] then
    return { type = "url", url = text, scheme = scheme:lower(), warnings = { "dangerous-scheme" } }
  end
  local u = url.parse(text)
  if not u or not u.host or u.host == "" or (u.scheme ~= "http" and u.scheme ~= "https") then return nil end
  if #u.host > 253 then return nil end  -- longer than any DNS name: not a web address
  local warnings = json.array()  -- a JSON list even when empty
  local host_unicode = punycode.host_to_unicode(u.host) or u.host
  local host_ascii = punycode.host_to_ascii(host_unicode) or u.host
  if u.scheme == "http" then warnings[#warnings + 1] = "insecure-http" end
  if u.userinfo then warnings[#warnings + 1] = "userinfo-before-host" end
  if urls.homograph(host_unicode) then warnings[#warnings + 1] = "idn-homograph" end
  if ip_host(u.host) then warnings[#warnings + 1] = "ip-host" end
  if urls.shorteners[host_ascii] then warnings[#warnings + 1] = "shortener" end
  return {
    type = "url", url = text, scheme = u.scheme, userinfo = u.userinfo, host = host_unicode,
    host_ascii = host_ascii, port = u.port, path = u.path, query = u.query_params, fragment = u.fragment,
    warnings = warnings,
  }
end

-- MECARD-style fields: KEY:value; with \; \: \, \\ escapes. Jumps from one special
-- character to the next, so long plain runs cost one string.find.
local function fields(body)
  local out, key, buf = {}, nil, {}
  local function flush()
    if key then
      local v = table.concat(buf)
      if out[key] == nil then out[key] = v elseif type(out[key]) == "table" then table.insert(out[key], v) else out[key] = { out[key], v } end
    end
    key, buf = nil, {}
  end
  local i, n = 1, #body
  while i <= n do
    local j = body:find("[\\;:]", i)
    if not j then
      buf[#buf + 1] = body:sub(i)
      break
    end
    buf[#buf + 1] = body:sub(i, j - 1)
    local c = body:sub(j, j)
    if c == "\\" then
      buf[#buf + 1] = body:sub(j + 1, j + 1)
      i = j + 2
    elseif c == ";" then
      flush()
      i = j + 1
    elseif key then
      buf[#buf + 1] = ":"  -- a ':' inside a value
      i = j + 1
    else
      key = table.concat(buf):upper()
      buf = {}
      i = j + 1
    end
  end
  flush()
  return out
end
urls.fields = fields

--- Action URIs: email, phone, sms, geo, bookmark. Returns a payload or nil.
function urls.parse_action(text)
  local lower = text:lower()
  if lower:sub(1, 7) == "mailto:" then
    local u = url.parse(text) or { path = text:sub(8) }
    local q = u.query_params or {}
    local to = u.path ~= "" and u.path or q.to
    return { type = "email", to = to, cc = q.cc, bcc = q.bcc, subject = q.subject, body = q.body }
  elseif lower:sub(1, 7) == "matmsg:" then
    local f = fields(text:sub(8))
    return { type = "email", to = f.TO, subject = f.SUB, body = f.BODY }
  elseif lower:sub(1, 4) == "tel:" then
    return { type = "phone", number = (url.decode(text:sub(5)) or text:sub(5)) }
  elseif lower:sub(1, 4) == "sms:" or lower:sub(1, 4) == "mms:" then
    local rest = text:sub(5)
    local numbers, query = rest:match("^([^?]*)%??(.*)$")
    numbers = numbers:gsub(";via=.*$", "")
    local list = {}
    for n in numbers:gmatch("[^,]+") do list[#list + 1] = n end
    local q = (url.parse("x:?" .. query) or {}).query_params or {}
    return { type = "sms", numbers = list, subject = q.subject, body = q.body }
  elseif lower:sub(1, 6) == "smsto:" or lower:sub(1, 6) == "mmsto:" then
    local number, body = text:sub(7):match("^([^:]*):?(.*)$")
    return { type = "sms", numbers = { number }, body = body ~= "" and body or nil }
  elseif lower:sub(1, 4) == "geo:" then
    local lat, lon, alt, query = text:sub(5):match("^([-+]?[%d.]+),([-+]?[%d.]+),?([-+]?[%d.]*)%??(.*)$")
    if not lat then return nil end
    lat, lon = tonumber(lat), tonumber(lon)
    if not lat or not lon or lat < -90 or lat > 90 or lon < -180 or lon > 180 then return nil end
    return { type = "geo", latitude = lat, longitude = lon, altitude = tonumber(alt), query = query ~= "" and query or nil }
  elseif lower:sub(1, 6) == "mebkm:" then
    local f = fields(text:sub(7))
    if not f.URL then return nil end
    local target = f.URL:find("://", 1, true) and f.URL or "http://" .. f.URL
    local p = urls.parse_url(target) or { type = "url", url = target, warnings = {} }
    p.title = f.TITLE
    return p
  end
  return nil
end

scan.parser {
  name = "url",
  types = { "url", "email", "phone", "sms", "geo" },
  symbologies = { "qrcode", "sqcode", "code128" },
  priority = 10,
  parse = function(ev)
    return urls.parse_action(ev.text) or urls.parse_url(ev.text)
  end,
}

local warning_words = {
  ["insecure-http"] = "not encrypted (http)",
  ["userinfo-before-host"] = "the text before '@' is not the site: it goes to the host after it",
  ["idn-homograph"] = "the host mixes look-alike letters from other alphabets",
  ["ip-host"] = "the host is a bare IP address",
  ["shortener"] = "a link shortener hides the real destination",
  ["dangerous-scheme"] = "this scheme can run code or open local files",
}

scan.summary {
  type = "url",
  format = function(p)
    local out = { (p.title and p.title .. ": " or "") .. p.url }
    if p.host and p.host_ascii and p.host ~= p.host_ascii then out[#out + 1] = "host " .. p.host .. " (" .. p.host_ascii .. ")" end
    for _, w in ipairs(p.warnings or {}) do out[#out + 1] = "warning: " .. (warning_words[w] or w) end
    return table.concat(out, "\n")
  end,
}

scan.summary { type = "email", format = function(p) return "email to " .. tostring(p.to) .. (p.subject and ", subject " .. p.subject or "") end }
scan.summary { type = "phone", format = function(p) return "phone " .. p.number end }
scan.summary { type = "sms", format = function(p) return "SMS to " .. table.concat(p.numbers, ", ") .. (p.body and ": " .. p.body or "") end }
scan.summary { type = "geo", format = function(p) return string.format("location %.6f, %.6f", p.latitude, p.longitude) end }

return urls
