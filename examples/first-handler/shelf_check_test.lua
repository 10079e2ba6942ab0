-- Run with: scanlua test examples/first-handler (modules next to a test file are found).
require "shelf_check"

describe("shelf-check handler", function()
  it("verifies the check digit", function()
    local r = scan.simulate { symbology = "ean13", text = "4719512002889" }
    expect(r.payload).to_equal({ type = "shelf-check", gtin = "04719512002889", valid = true, prefix = "471" })
    expect(scan.simulate { symbology = "ean13", text = "4719512002888" }.payload.valid).to_be(false)
  end)
  it("warns about restricted-circulation codes", function()
    local r = scan.simulate { symbology = "ean13", text = "2001234567893" }
    expect(r.emitted[1].message).to_equal("in-store code 02001234567893, not a global product")
    expect(r.emitted[1].rule).to_equal("restricted-range")
    expect(scan.simulate { symbology = "ean13", text = "4719512002889" }.emitted).to_be_nil()
  end)
end)
