local pharmacode = require "pharmacode"

-- Widths as zint draws them at scale 2: narrow bar 4, wide bar 12, space 8 pixels.
local function widths(bars)
  local w = {}
  for i = 1, #bars do
    w[#w + 1] = bars:sub(i, i) == "n" and 4 or 12
    if i < #bars then w[#w + 1] = 8 end
  end
  return w
end

describe("pharmacode.decode_bars", function()
  it("reads narrow as 1 and wide as 2, left to right", function()
    expect(pharmacode.decode_bars(widths("nn"))).to_be(3)
    expect(pharmacode.decode_bars(widths("nw"))).to_be(4)
    expect(pharmacode.decode_bars(widths("nnwwnwnnww"))).to_be(1234)
    expect(pharmacode.decode_bars(widths(string.rep("w", 16)))).to_be(131070)
  end)
  it("rejects what is not a Pharmacode", function()
    expect(select(2, pharmacode.decode_bars({ 4 }))).to_equal("fewer than 2 bars")
    expect(select(2, pharmacode.decode_bars(widths(string.rep("n", 17))))).to_equal("more than 16 bars")
    expect(select(2, pharmacode.decode_bars({ 4, 8, 4, 20, 4 }))).to_equal("spaces differ in width")
    expect(select(2, pharmacode.decode_bars({ 8, 8, 4 }))).to_equal("bar 1 is 1.00 spaces wide")
  end)
end)

describe("pharmacode.decode_scanline", function()
  it("needs quiet zones of three spaces", function()
    local w = widths("nnwwnwnnww")
    expect(pharmacode.decode_scanline { widths = w, quiet_before = 24, quiet_after = 30 }).to_equal({ "1234" })
    expect(pharmacode.decode_scanline { widths = w, quiet_before = 10, quiet_after = 30 }).to_equal({})
  end)
  it("takes the image edge for a quiet zone (zint's default output)", function()
    local w = widths("nnwwnwnnww")
    expect(pharmacode.decode_scanline { widths = w, quiet_before = 0, quiet_after = 0 }).to_equal({ "1234" })
  end)
  it("finds a code between other marks on the line", function()
    local w = { 30, 5, 2 }           -- something else, then a gap of 40
    w[#w + 1] = 40
    for _, x in ipairs(widths("nw")) do w[#w + 1] = x end
    expect(pharmacode.decode_scanline { widths = w, quiet_before = 0, quiet_after = 50 }).to_equal({ "4" })
  end)
end)
