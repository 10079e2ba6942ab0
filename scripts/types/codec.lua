---@meta codec
-- LuaLS annotations for `require "codec"` (see scan.lua).

---@class scanlua.codec
---@field decode fun(bytes: string, charset: string): string|nil, string?  nil plus a reason on invalid input
---@field encode fun(text: string, charset: string): string|nil, string?
---@field detect fun(bytes: string): string, string  text and charset, as events are decoded

---@type scanlua.codec
local codec = {}
return codec
