-- An image decoder that reports what its frame view holds, for the tests.
local scan = require "scan"
scan.decoder {
  name = "frame-probe",
  kind = "image",
  decode = function(f)
    local crop = f:crop(1, 2, 10, 5)
    local bw = f:binarize()
    local black = select(2, bw.data:gsub("\0", ""))
    local ad = f:adaptive(3, 2)
    return {
      text = string.format("w=%d h=%d x=%d y=%d otsu=%d get00=%d row=%d col=%d crop=%dx%d@%d,%d black=%d adaptive=%d",
        f.width, f.height, f.x, f.y, f:otsu(), f:get(0, 0), #f:row(0), #f:column(0), crop.width, crop.height,
        crop.x, crop.y, black, #ad.data),
      points = { { x = 0, y = 0 }, { x = 9, y = 9 } },
    }
  end,
}
scan.parser { name = "probe", symbologies = "frame-probe", parse = function(ev) return { type = "probe", len = #ev.text } end }
