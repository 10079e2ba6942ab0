-- Hostile input through every shipped parser (used by fuzz_test.lua and fuzz_large.lua):
-- each format's own prefix followed by each body. No parser may raise (an error, the
-- instruction budget or the memory cap would show in `errors`), and every call gives a payload.
local einvoice = require "handlers.tw_einvoice"

local M = {}

M.prefixes = {
  "", "AB11223344102052399990000014400000154000000000123456", "AB112233441020523999900000144000001540000000001234567ydXZt4LAN1UHN/j1juVcRA==:**********:3:3:",
  "**", "WIFI:", "MECARD:", "BIZCARD:", "BEGIN:VCARD\r\n", "BEGIN:VEVENT\r\nDTSTART:", "BCD\n002\n1\nSCT\n", "SPC\n0200\n1\n",
  "000201", "TWQRP://", "TWQRP%3A%2F%2F", "http://", "https://id.gs1.org/01/", "mailto:", "tel:", "sms:", "smsto:", "geo:",
  "MEBKM:URL:", "MATMSG:TO:", "(01)", "01", "]C1", "javascript:", "xn--",
}

--- One `it` per symbology, each pushing every prefix + body through scan.simulate.
function M.run(name, bodies)
  describe(name, function()
    for _, symbology in ipairs { "qrcode", "code128", "ean13", "databar-exp", "code39" } do
      it("never raises for " .. symbology, function()
        for _, prefix in ipairs(M.prefixes) do
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
end

return M
