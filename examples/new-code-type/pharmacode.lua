-- Pharmacode (Laetus, one-track), decoded in Lua from the bar widths of scan lines.
--
-- A Pharmacode holds a number from 3 to 131070 in 2 to 16 bars, each narrow or wide, with equal
-- spaces between them. The printing rule (Laetus; zint --barcode=51): narrow bar 0.5, space 1.0,
-- wide bar 1.5 units. Read left to right: value = value * 2 + 1 for a narrow bar, + 2 for a wide one.
--
--   scanlua scan --script examples/new-code-type/pharmacode.lua IMAGES
local scan = require "scan"

local pharmacode = {}

local function median(list)
  local t = {}
  for i, v in ipairs(list) do t[i] = v end
  table.sort(t)
  return t[(#t + 1) // 2]
end

--- Decodes one Pharmacode from bar and space widths (bar, space, ..., bar).
--- Returns the value, or nil and the reason it is not a Pharmacode.
function pharmacode.decode_bars(widths)
  local nbars = (#widths + 1) // 2
  if #widths % 2 == 0 then return nil, "runs must start and end with a bar" end
  if nbars < 2 then return nil, "fewer than 2 bars" end
  if nbars > 16 then return nil, "more than 16 bars" end
  local space_sum, smin, smax = 0, math.huge, 0
  for i = 2, #widths - 1, 2 do
    local s = widths[i]
    space_sum = space_sum + s
    smin, smax = math.min(smin, s), math.max(smax, s)
  end
  local space = space_sum / (nbars - 1)
  -- Spaces are all the same width; allow for blur and pixel rounding.
  if smax > smin * 1.6 + 2 then return nil, "spaces differ in width" end
  -- Narrow bars are half a space wide, wide bars one and a half; anything in between is not
  -- a Pharmacode bar (blur widens bars and narrows spaces, hence the generous bands).
  local value = 0
  for i = 1, #widths, 2 do
    local ratio = widths[i] / space
    local bit
    if ratio >= 0.25 and ratio <= 0.85 then bit = 1
    elseif ratio >= 1.15 and ratio <= 2.4 then bit = 2
    else return nil, string.format("bar %d is %.2f spaces wide", (i + 1) // 2, ratio) end
    value = value * 2 + bit
  end
  if value < 3 or value > 131070 then return nil, "value " .. value .. " outside 3..131070" end
  return value
end

--- Splits a scan line at gaps (spaces over 2.5 times the line's median space, and the line ends)
--- and decodes each part that has quiet zones of at least three spaces on both sides. The image's
--- edge counts as a quiet zone: zint's default output has bars right at the edge.
function pharmacode.decode_scanline(line)
  local w = line.widths
  local spaces = {}
  for i = 2, #w - 1, 2 do spaces[#spaces + 1] = w[i] end
  local gap = #spaces > 0 and median(spaces) * 2.5 or math.huge
  local values = {}
  local first = 1
  local function try(last)
    local part = table.move(w, first, last, 1, {})
    local before = first == 1 and line.quiet_before or w[first - 1]
    local after = last == #w and line.quiet_after or w[last + 1]
    if first == 1 and before == 0 then before = math.huge end   -- a bar starting at the edge
    if last == #w and after == 0 then after = math.huge end
    local value = pharmacode.decode_bars(part)
    local space = part[2] or 0
    if value and before >= 3 * space and after >= 3 * space then values[#values + 1] = tostring(value) end
  end
  for i = 2, #w - 1, 2 do
    if w[i] > gap then
      try(i - 1)
      first = i + 1
    end
  end
  try(#w)
  return values
end

scan.decoder {
  name = "pharmacode",
  kind = "linear",
  directions = "both",   -- rows for an upright code, columns for one turned 90 degrees
  step = 4,
  min_lines = 3,       -- the same value on three neighbouring scan lines: noise rarely agrees with itself
  decode = pharmacode.decode_scanline,
}

return pharmacode
