-- prelude 4/6, frames: what the host needs to drive Lua decoders, and frame views.
local host, core = ...
local budget_call = host.limits.call
local ipairs, tostring, error, setmetatable = ipairs, tostring, error, setmetatable
local decoders, handler_error = core.decoders, core.handler_error

-- The decoders as decoder_specs last listed them: the host calls them by that index for the
-- whole frame, so a decoder removed mid-frame (scan.remove) shifts no other decoder's index.
local listed = {}

-- The specs the host needs to drive decoders: { {name=, kind=, directions=, step=, min_lines=, enabled=}, ... }.
local function decoder_specs()
  local out = {}
  listed = {}
  for i, d in ipairs(decoders) do
    listed[i] = d
    out[i] = { name = d.name, kind = d.decoder_kind, directions = d.directions, step = d.step,
               min_lines = d.min_lines, enabled = not d.disabled, where = d.where }
  end
  return out
end

-- What a decoder's values carried for their parser (`fields = {...}`), by decoder and bytes:
-- the event of that symbol gets them as `ev.fields` (decoders and parsers share this engine).
-- Cleared before each frame's Lua decoders run.
-- core.decoder_fields_kept says whether there are any: the dispatcher asks only then.
local decoder_fields = {}
core.decoder_fields_kept = false
local function clear_decoder_fields() decoder_fields = {}; core.decoder_fields_kept = false end
local function keep_fields(name, v)
  if type(v) == "table" and type(rawget(v, "fields")) == "table" then
    local bytes = rawget(v, "bytes") or rawget(v, "text")
    if type(bytes) == "string" then
      decoder_fields[name .. "\0" .. bytes] = rawget(v, "fields")
      core.decoder_fields_kept = true
    end
  end
end
local function fields_for(symbology, bytes)
  if next(decoder_fields) == nil then return nil end
  return decoder_fields[symbology .. "\0" .. bytes]
end

-- Calls decoder i on a scan line or frame view. Returns true, results (nil, a value, or a list
-- of values) or false, error message with the decoder's name.
local function call_decoder(i, arg)
  local d = listed[i]
  if not d or d.disabled then return true, nil end
  local ok, res = budget_call(d.fn, arg)
  if ok then
    if d.failures ~= 0 then d.failures = 0 end
    if type(res) == "table" then
      if rawget(res, "text") ~= nil or rawget(res, "bytes") ~= nil then keep_fields(d.name, res)
      else for k = 1, rawlen(res) do keep_fields(d.name, rawget(res, k)) end end
    end
    return true, res
  end
  local e = handler_error(d, res)
  return false, e.message
end

-- Frame views for image decoders: the pixels are one byte string, row by row.
local frame_methods = {}
-- __metatable hides the metatable, so a script cannot make a forged table look like a frame.
local frame_mt = { __index = frame_methods, __metatable = "frame" }
local dgetmetatable = debug.getmetatable

-- Frame methods take genuine frames only (made by the host or by these methods).
-- A script may still change a frame's fields: its data must match its size.
local mtype = math.type
local function genuine(f, api)
  if dgetmetatable(f) ~= frame_mt then error(api .. ": expected a frame, got " .. type(f), 3) end
  local w, h = f.width, f.height
  if mtype(w) ~= "integer" or mtype(h) ~= "integer" or w < 1 or h < 1 or type(f.data) ~= "string"
      or w > #f.data or h > #f.data or #f.data ~= w * h then
    error(api .. ": the frame's data does not match its width and height", 3)
  end
end

local function new_frame(data, width, height, x, y)
  return setmetatable({ data = data, width = width, height = height, x = x or 0, y = y or 0 }, frame_mt)
end

--- The gray level (0 black ... 255 white) at column x, row y (0-based), or nil outside.
function frame_methods.get(f, x, y)
  genuine(f, "frame:get")
  if x < 0 or y < 0 or x >= f.width or y >= f.height then return nil end
  return f.data:byte(y * f.width + x + 1)
end

--- Row y (0-based) as a byte string of `width` gray levels.
function frame_methods.row(f, y)
  genuine(f, "frame:row")
  if y < 0 or y >= f.height then error("frame:row: row " .. tostring(y) .. " outside 0.." .. (f.height - 1), 2) end
  return f.data:sub(y * f.width + 1, (y + 1) * f.width)
end

--- Column x (0-based) as a byte string of `height` gray levels.
function frame_methods.column(f, x)
  genuine(f, "frame:column")
  if x < 0 or x >= f.width then error("frame:column: column " .. tostring(x) .. " outside 0.." .. (f.width - 1), 2) end
  return host.frames.column(f.data, f.width, f.height, x)
end

--- A view of the rectangle (x, y, w, h), clipped to the frame; its x, y say where it sits.
function frame_methods.crop(f, x, y, w, h)
  genuine(f, "frame:crop")
  local x0, y0 = math.max(0, x), math.max(0, y)
  local x1, y1 = math.min(f.width, x + w), math.min(f.height, y + h)
  if x1 <= x0 or y1 <= y0 then error("frame:crop: the rectangle is outside the frame", 2) end
  local rows = {}
  for r = y0, y1 - 1 do rows[#rows + 1] = f.data:sub(r * f.width + x0 + 1, r * f.width + x1) end
  return new_frame(table.concat(rows), x1 - x0, y1 - y0, f.x + x0, f.y + y0)
end

--- Otsu's threshold of the frame: the gray level that best splits dark from light.
function frame_methods.otsu(f)
  genuine(f, "frame:otsu")
  return host.frames.otsu(f.data)
end

--- A black (0) and white (255) copy: below `level` is black. Without a level, Otsu's.
function frame_methods.binarize(f, level)
  genuine(f, "frame:binarize")
  return new_frame(host.frames.binarize(f.data, level or host.frames.otsu(f.data)), f.width, f.height, f.x, f.y)
end

--- A black and white copy thresholded against the mean of each pixel's (2r+1)^2 neighbourhood
--- minus `offset` (defaults r = 7, offset = 5): for uneven lighting.
function frame_methods.adaptive(f, r, offset)
  genuine(f, "frame:adaptive")
  return new_frame(host.frames.adaptive(f.data, f.width, f.height, r, offset), f.width, f.height, f.x, f.y)
end

core.decoder_specs, core.call_decoder, core.frame_mt = decoder_specs, call_decoder, frame_mt
core.clear_decoder_fields, core.decoder_fields_for = clear_decoder_fields, fields_for
