-- A custom payload format on top of QR: shelf labels.
--
--   SHELF1:<location>:<gtin>:<check>
--
-- location: 1-16 characters A-Z, 0-9 and '-' (aisle-shelf-slot, e.g. "A03-2-14");
-- gtin: 8, 12, 13 or 14 digits with a valid GS1 check digit;
-- check: two decimal digits, the ISO 7064 MOD 97-10 check of "<location>:<gtin>" letters and digits
-- (the same arithmetic as an IBAN: checkdigit.mod97 over the text with ':' and '-' left out).
--
--   scanlua scan --script examples/new-code-type/shelf-label.lua examples/new-code-type/images
local scan = require "scan"
local checkdigit = require "checkdigit"

local shelf = {}

--- The two check digits for a location and GTIN: 98 minus the MOD 97 of their digits and
--- letters followed by "00", so that the whole label's MOD 97 is 1.
function shelf.check_digits(location, gtin)
  local body = (location .. gtin):gsub("[^%w]", "")
  return string.format("%02d", 98 - checkdigit.mod97(body .. "00"))
end

--- Parses a label. Returns nil when the text is not a shelf label at all, otherwise a payload
--- with valid = true, or valid = false and the problems found.
function shelf.parse(text)
  local location, gtin, check = text:match("^SHELF1:([^:]*):([^:]*):([^:]*)$")
  if not location then return nil end
  local problems = {}
  if not location:match("^[A-Z0-9%-]+$") or #location > 16 then
    problems[#problems + 1] = "location must be 1-16 characters A-Z, 0-9 or '-'"
  end
  if not gtin:match("^%d+$") or not (#gtin == 8 or #gtin == 12 or #gtin == 13 or #gtin == 14) then
    problems[#problems + 1] = "gtin must be 8, 12, 13 or 14 digits"
  elseif not checkdigit.gs1_valid(gtin) then
    problems[#problems + 1] = "gtin check digit is wrong"
  end
  if not check:match("^%d%d$") then
    problems[#problems + 1] = "check must be two digits"
  elseif #problems == 0 and check ~= shelf.check_digits(location, gtin) then
    problems[#problems + 1] = "label check " .. check .. " does not match " .. shelf.check_digits(location, gtin)
  end
  return {
    type = "shelf-label",
    location = location,
    gtin = gtin,
    check = check,
    valid = #problems == 0,
    problems = #problems > 0 and problems or nil,
  }
end

scan.parser {
  name = "shelf-label",
  types = "shelf-label",
  symbologies = { "qrcode", "code128" },
  match = "^SHELF1:",
  priority = 20,
  parse = function(ev) return shelf.parse(ev.text) end,
}

-- A stock-taking rule: a good label becomes a CSV line; a bad one a warning on the record.
scan.rule {
  name = "shelf-stocktake",
  on = "shelf-label",
  run = function(p, ctx)
    if not p.valid then
      ctx.emit { type = "warning", message = "bad shelf label: " .. table.concat(p.problems, "; ") }
      return nil
    end
    return { type = "append", path = "stocktake.csv", line = p.location .. "," .. p.gtin }
  end,
}

return shelf
