---@meta base64
-- LuaLS annotations for `require "base64"` (see scan.lua).

---@class scanlua.base64
---@field encode fun(bytes: string): string
---@field decode fun(text: string): string|nil, string?

---@type scanlua.base64
local base64 = {}
return base64
