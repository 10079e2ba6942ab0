--- textwidth: terminal column widths of UTF-8 text, for aligned tables with CJK text.
---   textwidth.width(s) -> columns (East Asian wide and fullwidth characters count 2)
---   textwidth.pad(s, columns [, right]) -> s padded with spaces to `columns`
local textwidth = {}

local function wide(cp)
  return (cp >= 0x1100 and cp <= 0x115F) or (cp >= 0x2E80 and cp <= 0xA4CF) or (cp >= 0xAC00 and cp <= 0xD7A3)
      or (cp >= 0xF900 and cp <= 0xFAFF) or (cp >= 0xFE30 and cp <= 0xFE4F) or (cp >= 0xFF00 and cp <= 0xFF60)
      or (cp >= 0xFFE0 and cp <= 0xFFE6) or (cp >= 0x20000 and cp <= 0x3FFFD)
end

function textwidth.width(s)
  local n = 0
  local ok = pcall(function()
    for _, cp in utf8.codes(s) do n = n + (wide(cp) and 2 or (cp < 0x20 and 0 or 1)) end
  end)
  return ok and n or #s
end

function textwidth.pad(s, columns, right)
  local fill = string.rep(" ", math.max(0, columns - textwidth.width(s)))
  return right and fill .. s or s .. fill
end

return textwidth
