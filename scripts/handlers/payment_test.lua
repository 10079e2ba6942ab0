-- Vectors: ../shared/research/payloads.md §5 (segno EPC tests citing EPC069-12, swiss-qr-bill tests,
-- promptpay-qr, emv-qr-code README, the BCB PIX example).
local payment = require "handlers.payment"
local codec = require "codec"

describe("EPC credit transfer", function()
  it("example 1 (UTF-8)", function()
    local p = scan.simulate { text = "BCD\n002\n1\nSCT\nBHBLDEHHXXX\nFranz Mustermänn\nDE71110220330123456789\nEUR12.3\nGDDS\nRF18539007547034" }.payload
    expect(p.type).to_equal("epc")
    expect({ p.bic, p.name, p.iban, p.currency, p.amount, p.purpose, p.reference }).to_equal(
      { "BHBLDEHHXXX", "Franz Mustermänn", "DE71110220330123456789", "EUR", 12.3, "GDDS", "RF18539007547034" })
    expect(p.reference_valid).to_be(true)
    expect(p.valid).to_be(true)
  end)
  it("example 2 (ISO-8859-1, decoded by its own line 3)", function()
    local bytes = codec.encode("BCD\n002\n2\nSCT\n\nFrançois D'Alsace S.A.\nFR1420041010050500013M02606\nEUR12.3\n\n\nClient:Marie Louise La Lune", "latin1")
    expect(#bytes).to_be(103)
    local p = scan.simulate { bytes = bytes }.payload
    expect(p.name).to_equal("François D'Alsace S.A.")
    expect(p.text).to_equal("Client:Marie Louise La Lune")
    expect(p.bic).to_be_nil()
    expect(p.valid).to_be(true)
  end)
  it("invalid fields", function()
    local function problems(amount, bic, charset)
      return payment.epc("BCD\n002\n" .. (charset or "1") .. "\nSCT\n" .. (bic or "") .. "\nX\nDE71110220330123456789\n" .. amount).problems
    end
    expect(problems("EUR0")).to_equal({ "amount 'EUR0' must be EUR0.01 to EUR999999999.99" })
    expect(problems("EUR0.004")).to_equal({ "amount 'EUR0.004' must be EUR0.01 to EUR999999999.99" })
    expect(problems("EUR999999999.999")).to_equal({ "amount 'EUR999999999.999' must be EUR0.01 to EUR999999999.99" })
    expect(problems("EUR5", "BHBLDE")).to_equal({ "BIC must be 8 or 11 characters" })
    expect(problems("EUR5", nil, "9")[1]).to_equal("character set '9' is not 1-8")
    expect(payment.epc("BCD\n002\n1\nSCT\n\n" .. string.rep("n", 71) .. "\nDE71110220330123456789").problems).to_equal({ "beneficiary name must be 1-70 characters" })
  end)
end)

describe("Swiss QR-bill", function()
  it("the minimal bill (swiss-qr-bill test_minimal_data)", function()
    local p = scan.simulate { text = "SPC\r\n0200\r\n1\r\nCH5380005000010283664\r\nS\r\nJane\r\n\r\n\r\n1000\r\nLausanne\r\nCH\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nCHF\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nNON\r\n\r\n\r\nEPD" }.payload
    expect(p.type).to_equal("swiss-qr-bill")
    expect(p.iban).to_equal("CH5380005000010283664")
    expect(p.creditor).to_equal({ type = "S", name = "Jane", postcode = "1000", town = "Lausanne", country = "CH" })
    expect(p.currency).to_equal("CHF")
    expect(p.reference_type).to_equal("NON")
    expect(p.valid).to_be(true)
  end)
  it("checks QR references", function()
    local base = "SPC\n0200\n1\nCH4431999123000889012\nS\nRobert\n\n\n2501\nBiel\nCH\n\n\n\n\n\n\n\n1949.75\nCHF\n\n\n\n\n\n\n\nQRR\n%s\nmsg\nEPD"
    local good = payment.swiss(base:format("210000000003139471430009017"))
    expect(good.reference_valid).to_be(true)
    expect(good.amount).to_be(1949.75)
    expect(good.valid).to_be(true)
    expect(payment.swiss(base:format("210000000003139471430009018")).problems).to_equal({ "QR reference fails its mod-10 check" })
    expect(payment.swiss("SPC\n0200\n1\nCH53").problems[1]).to_equal("a QR-bill has at least 31 lines, this one 4")
  end)
  -- Issue 23: what tonumber took, and what the implementation guidelines refuse.
  local bill = "SPC\n0200\n1\n%s\n%s\n%s\n%s\n%s\n%s\n%s\nCH\n\n\n\n\n\n\n\n%s\nCHF\n\n\n\n\n\n\n\n%s\n%s\n\nEPD"
  local function swiss(amount, iban, ref_type, ref, addr)
    addr = addr or { "S", "Robert", "Rue du Lac", "12", "2501", "Biel" }
    return payment.swiss(bill:format(iban or "CH5380005000010283664", addr[1], addr[2], addr[3], addr[4], addr[5], addr[6],
                                     amount, ref_type or "NON", ref or ""))
  end
  it("reads amounts as the guidelines write them, and nothing else", function()
    expect(swiss("1949.75").amount).to_be(1949.75)
    expect(swiss("50").amount).to_be(50)
    expect(swiss("0.5").amount).to_be(0.5)
    expect(swiss("999999999.99").amount).to_be(999999999.99)
    for _, bad in ipairs({ "1,949.75", "1000000000.00", "1949.7555", "0x10", "1e3", "-5.00", "0.00", "12.", " 12" }) do
      local p = swiss(bad)
      expect(p.amount).to_be_nil()
      expect(p.valid).to_be(false)
      expect(p.problems).to_contain("amount " .. bad .. " is not an amount: digits, a point and at most 2 decimals, 0.01 to 999999999.99")
    end
    local r = scan.simulate { text = bill:format("CH5380005000010283664", "S", "Robert", "", "", "2501", "Biel", "1,949.75", "NON", "") }
    expect(r.summary).to_equal("Swiss QR-bill amount 1,949.75 (not an amount) to Robert, CH5380005000010283664 (INVALID)")
  end)
  it("needs a QRR reference with a QR-IBAN", function()
    local qr_iban = "CH4431999123000889012"
    expect(swiss("10.00", qr_iban, "QRR", "210000000003139471430009017").valid).to_be(true)
    expect(swiss("10.00", qr_iban, "NON").problems).to_equal({ "a QR-IBAN needs a QRR reference" })
    expect(swiss("10.00", qr_iban, "SCOR", "RF18539007547034").problems).to_equal({ "a QR-IBAN needs a QRR reference" })
  end)
  it("keeps a combined address's two lines apart and flags type K", function()
    local p = swiss("10.00", nil, nil, nil, { "K", "Pia Rutschmann", "Marktgasse 28", "9400 Rorschach", "", "" })
    expect(p.creditor).to_equal({ type = "K", name = "Pia Rutschmann", address_line1 = "Marktgasse 28", address_line2 = "9400 Rorschach", country = "CH" })
    expect(p.valid).to_be(false)
    expect(p.problems).to_equal({ "creditor: a combined address (type K) is no longer allowed since November 2025; use S" })
  end)
end)

describe("EMVCo merchant-presented QR", function()
  it("CRC-16/CCITT-FALSE check value", function()
    expect(payment.crc16("123456789")).to_equal("29B1")
  end)
  it("PromptPay, static and dynamic", function()
    local p = scan.simulate { text = "00020101021129370016A000000677010111011300668012345675802TH530376463046197" }.payload
    expect(p.type).to_equal("emv-merchant")
    expect(p.initiation).to_equal("static")
    expect(p.merchant_accounts[1]).to_equal({ id = "29", gui = "A000000677010111", subfields = { { id = "01", value = "0066801234567" } } })
    expect({ p.country, p.currency }).to_equal({ "TH", "THB" })
    expect(p.crc_valid).to_be(true)
    local d = payment.emv("00020101021229370016A000000677010111011300660000000005802TH530376454044.226304E469")
    expect({ d.initiation, d.amount, d.valid }).to_equal({ "dynamic", 4.22, true })
    expect(payment.emv("00020101021129370016A000000677010111011300668912345675802TH5303764630429C1").valid).to_be(true)
    expect(payment.emv("00020101021129370016A000000677010111021311111111111115802TH530376463047B5A").valid).to_be(true)
  end)
  it("Cambodian shop and PIX", function()
    local k = payment.emv("00020101021252044131153137210116372101160123456789ABCDE6016Banteay Meanchey5913Kuntheas Shop5802KH540510.005303840621201081234567863041FF2")
    expect({ k.merchant_category, k.merchant_city, k.merchant_name, k.amount, k.currency, k.valid }).to_equal(
      { "4131", "Banteay Meanchey", "Kuntheas Shop", 10, "USD", true })
    expect(k.additional).to_equal({ { id = "01", value = "12345678" } })
    local pix = payment.emv("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D")
    expect(pix.merchant_accounts[1].gui).to_equal("br.gov.bcb.pix")
    expect(pix.valid).to_be(true)
  end)
  it("reports a wrong CRC and broken TLV", function()
    expect(payment.emv("00020101021129370016A000000677010111011300668012345675802TH530376463046198").problems).to_equal({ "CRC 6198 does not match 6197" })
    expect(payment.emv("0002010102").problems).to_equal({ "field 01 is cut short" })
    expect(payment.emv("000201010299").problems).to_equal({ "CRC (63) must be the last field" })
  end)
end)

describe("TWQR", function()
  it("reads a transfer URI, plain and percent-encoded", function()
    local p = scan.simulate { text = "TWQRP://個人轉帳/158/02/V1?D6=0000250004373979&D5=004&D10=901" }.payload
    expect({ p.type, p.name, p.kind, p.bank, p.account, p.valid }).to_equal({ "twqr", "個人轉帳", "transfer", "004", "0000250004373979", true })
    local e = payment.twqr("TWQRP%3A%2F%2FNTTransfer%2F158%2F01%2FV1%3FD1%3D60000")
    expect({ e.name, e.kind, e.amount_field }).to_equal({ "NTTransfer", "purchase", "60000" })
    expect(payment.twqr("TWQRP://xn--gmqw5ax42ad01c/158/02/V1").name).to_equal("個人轉帳")
  end)
end)
