-- Hostile input through every shipped parser: random bytes, a 1 MB string, NUL bytes, invalid
-- UTF-8 and separator floods, after each format's own prefix. No parser may raise (an error,
-- the instruction budget or the memory cap would show in `errors`), and every call gives a payload.
local einvoice = require "handlers.tw_einvoice"

local prefixes = {
  "", "AB11223344102052399990000014400000154000000000123456", "AB112233441020523999900000144000001540000000001234567ydXZt4LAN1UHN/j1juVcRA==:**********:3:3:",
  "**", "WIFI:", "MECARD:", "BIZCARD:", "BEGIN:VCARD\r\n", "BEGIN:VEVENT\r\nDTSTART:", "BCD\n002\n1\nSCT\n", "SPC\n0200\n1\n",
  "000201", "TWQRP://", "TWQRP%3A%2F%2F", "http://", "https://id.gs1.org/01/", "mailto:", "tel:", "sms:", "smsto:", "geo:",
  "MEBKM:URL:", "MATMSG:TO:", "(01)", "01", "]C1", "javascript:", "xn--",
}

local bodies = {}
math.randomseed(42)
local function random_bytes(n)
  local t = {}
  for i = 1, n do t[i] = string.char(math.random(0, 255)) end
  return table.concat(t)
end
bodies[#bodies + 1] = random_bytes(64)
bodies[#bodies + 1] = random_bytes(1000)
bodies[#bodies + 1] = string.rep("\0", 100)
bodies[#bodies + 1] = "\255\254\253\192\128invalid utf-8\237\160\128"
bodies[#bodies + 1] = string.rep(":", 5000)
bodies[#bodies + 1] = string.rep(";", 5000)
bodies[#bodies + 1] = string.rep("\\", 5000)
bodies[#bodies + 1] = string.rep("\r\n", 3000)
bodies[#bodies + 1] = string.rep("=", 4000)
bodies[#bodies + 1] = string.rep("A", 1 << 20)            -- 1 MB
bodies[#bodies + 1] = string.rep("x:1:2:", 1 << 17)        -- 768 KB of item-like records

describe("fuzz", function()
  for _, symbology in ipairs { "qrcode", "code128", "ean13", "databar-exp", "code39" } do
    it("never raises for " .. symbology, function()
      for _, prefix in ipairs(prefixes) do
        for _, body in ipairs(bodies) do
          einvoice.reset()
          local r = scan.simulate { symbology = symbology, bytes = prefix .. body, siblings = { { bytes = "**" .. body } } }
          if r.errors then
            error(string.format("%s %q + %d bytes: %s", symbology, prefix, #body, r.errors[1].message), 0)
          end
          expect(type(r.payload.type)).to_equal("string")
        end
      end
    end)
  end
end)
