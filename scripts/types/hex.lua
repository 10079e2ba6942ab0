---@meta hex
-- LuaLS annotations for `require "hex"` (see scan.lua).

---@class scanlua.hex
---@field encode fun(bytes: string, upper: boolean?): string
---@field decode fun(text: string): string|nil, string?

---@type scanlua.hex
local hex = {}
return hex
