-- Vectors: ../shared/research/payloads.md §1 (MOF spec v1.8 examples T1, public test
-- vectors T2-T16 with their sources there, malformed cases from invoice-wallet's fixtures).
local einvoice = require "handlers.tw_einvoice"
local codec = require "codec"
local hex = require "hex"

local HEAD = "AB112233441020523999900000144000001540000000001234567ydXZt4LAN1UHN/j1juVcRA=="

local function invoice(left, right, symbology)
  einvoice.reset()
  local siblings = right and { { text = right } } or nil
  return scan.simulate { symbology = symbology or "qrcode", text = left, siblings = siblings }
end

local T1_ITEMS = {
  { name = "乾電池", quantity = 1, unit_price = 105 },
  { name = "口罩", quantity = 1, unit_price = 210 },
  { name = "牛奶", quantity = 1, unit_price = 25 },
}

describe("tw-einvoice: the spec's three encodings of one invoice (T1)", function()
  it("UTF-8 (flag 1)", function()
    local r = invoice(HEAD .. ":**********:3:3:1:乾電池:1:105:", "**口罩:1:210:牛奶:1:25")
    local p = r.payload
    expect(r.parser).to_equal("tw-einvoice")
    expect(p.invoice_number).to_equal("AB11223344")
    expect(p.date).to_equal("2013-05-23")
    expect(p.random_code).to_equal("9999")
    expect(p.sales_amount).to_be(324)
    expect(p.total_amount).to_be(340)
    expect(p.buyer_id).to_equal("00000000")
    expect(p.seller_id).to_equal("01234567")
    expect(p.seller_id_valid).to_be(false)   -- the spec's sample UBN
    expect(p.verification).to_equal("ydXZt4LAN1UHN/j1juVcRA==")
    expect(p.encoding).to_equal("utf-8")
    expect(p.item_count_in_codes).to_be(3)
    expect(p.item_count_total).to_be(3)
    expect(p.items).to_equal(T1_ITEMS)
    expect(p.complete).to_be(true)
    expect(p.valid).to_be(true)
  end)
  it("Big5 (flag 0), from the codes' raw bytes", function()
    local left = codec.encode(HEAD .. ":**********:3:3:0:乾電池:1:105:", "big5")
    local right = codec.encode("**口罩:1:210:牛奶:1:25", "big5")
    einvoice.reset()
    local r = scan.simulate { bytes = left, siblings = { { bytes = right } } }
    expect(r.payload.encoding).to_equal("big5")
    expect(r.payload.items).to_equal(T1_ITEMS)
  end)
  it("Base64 (flag 2), each code's chunk decoded on its own, cut between name and quantity", function()
    local r = invoice(HEAD .. ":**********:3:3:2:5Lm+6Zu75rGg", "**OjE6MTA1OuWPo+e9qToxOjIxMDrniZvlpbY6MToyNQ==")
    expect(r.payload.encoding).to_equal("base64")
    expect(r.payload.items).to_equal(T1_ITEMS)
  end)
  it("the right code's record says where it went", function()
    einvoice.reset()
    local r = scan.simulate { text = "**口罩:1:210:牛奶:1:25", siblings = { { text = HEAD .. ":**********:3:3:1:乾電池:1:105:" } } }
    expect(r.payload).to_equal({ type = "tw-einvoice-right", continuation = "口罩:1:210:牛奶:1:25", merged_into = "AB11223344" })
  end)
end)

describe("tw-einvoice: public vectors", function()
  it("T2: counts say 1, two items", function()
    local p = invoice("CA63388616107042714060000003e0000004100000000247894573A2IzH97mHFMn89HdKcQCQ==:**********:1:1:1:尖叫雞/隻:1:25:尖叫雞EX/隻:1:50").payload
    expect(p.date).to_equal("2018-04-27")
    expect({ p.sales_amount, p.total_amount }).to_equal({ 62, 65 })
    expect(p.seller_id).to_equal("24789457")
    expect(p.items).to_equal({ { name = "尖叫雞/隻", quantity = 1, unit_price = 25 }, { name = "尖叫雞EX/隻", quantity = 1, unit_price = 50 } })
    expect(p.complete).to_be(true)
  end)
  it("T3: left only, one of two items, incomplete", function()
    local p = invoice("ZH0872526710701013550000000000000004d0000000028997723uaxq26SZudKCJOGnIG/9SA==:**********:2:2:1:味味一品原汁珍味牛肉麵185g:1:46:").payload
    expect(p.date).to_equal("2018-01-01")
    expect(p.sales_amount).to_be(0)
    expect(p.total_amount).to_be(77)
    expect(p.items).to_equal({ { name = "味味一品原汁珍味牛肉麵185g", quantity = 1, unit_price = 46 } })
    expect(p.complete).to_be(false)
    expect(p.seller_id_valid).to_be(true)
  end)
  it("T4: Big5 item with decimal quantity and price", function()
    local left = "YH625882881061129065500000381000003ae0000000046038423pSPPr4Z2OFqheeh9OP47YA==:**********:1:1:0:"
      .. hex.decode("a445a4adb54cb95d") .. ":35.00:26.90"
    einvoice.reset()
    local p = scan.simulate { bytes = left }.payload
    expect({ p.sales_amount, p.total_amount }).to_equal({ 897, 942 })
    expect(p.items).to_equal({ { name = "九五無鉛", quantity = 35, unit_price = 26.9 } })
  end)
  it("T6: names starting with U+3000, zero-price combo lines", function()
    local right = "**　甕仔雞(套餐090:1:0:　雪花肉炒脆瓜(:1:0:　筍湯(套餐09002:1:0:　大酸筍炒空心菜:1:0:　大碗公白飯(套:1:0"
    local p = invoice("ZF760112291150417517300000000000004380000000082653921DP8BKGWr18psJdQ8EGQthA==:**********:6:6:1:1080B套餐:1:1080:", right).payload
    expect(p.date).to_equal("2026-04-17")
    expect(#p.items).to_be(6)
    expect(p.items[2]).to_equal({ name = "　甕仔雞(套餐090", quantity = 1, unit_price = 0 })
    expect(p.total_amount).to_be(1080)
  end)
  it("T7 and T10: no item in the left code", function()
    local p = invoice("ZP4610585411504219684000000dd000000e80000000090650686uVRGyvkXO4arTAAHA722vQ==:**********:1:1:1:").payload
    expect({ p.date, p.sales_amount, p.total_amount }).to_equal({ "2026-04-21", 221, 232 })
    expect(p.items).to_equal({})
    expect(p.complete).to_be(false)
    local p10 = invoice("KH1440387611001035057000000390000003c000000002898467872rStxzKloUSiNojOjCAJA==:**********:1:1:1:").payload
    expect({ p10.date, p10.random_code, p10.sales_amount, p10.total_amount }).to_equal({ "2021-01-03", "5057", 57, 60 })
  end)
  it("T8: 32-character verification, no ':' before the stars, counts 0:3, CRLF in a name", function()
    local p = invoice("YZ2986395711504266315000002F8000002F80000000039858516QlZkaTZwMW8wK2M4Y2ZDK0NBTkZNQT09**********:0:3:1",
      "**:大 手拍 肉魔王四喜:1:800:大 手拍 超級豪華\r\n(超級豪華):1:690:1.25公升 百事可樂:1:45").payload
    expect(p.verification).to_equal("QlZkaTZwMW8wK2M4Y2ZDK0NBTkZNQT09")
    expect({ p.item_count_in_codes, p.item_count_total }).to_equal({ 0, 3 })
    expect({ p.sales_amount, p.total_amount }).to_equal({ 760, 760 })
    expect(p.items).to_equal({
      { name = "大 手拍 肉魔王四喜", quantity = 1, unit_price = 800 },
      { name = "大 手拍 超級豪華\r\n(超級豪華)", quantity = 1, unit_price = 690 },
      { name = "1.25公升 百事可樂", quantity = 1, unit_price = 45 },
    })
    expect(p.valid).to_be(true)
  end)
  it("T9: right code starting with '**:' and padded with 78 spaces", function()
    local p = invoice("ZF131378791150410957900000000000000550000000098952903hD1D6Z3tgPPiaySVPqrf9Q==:**********:2:2:1:超厚雞肉起司滿分堡:1:60",
      "**:奶茶(M)(熱):1:25" .. string.rep(" ", 78)).payload
    expect(p.items).to_equal({ { name = "超厚雞肉起司滿分堡", quantity = 1, unit_price = 60 }, { name = "奶茶(M)(熱)", quantity = 1, unit_price = 25 } })
  end)
  it("T11: B2B buyer, Big5 flag on ASCII-only text, 1 of 2 items", function()
    local p = invoice("AC1236770511406096121000000ee000000fa5588071012345678Kl5uSAlhCfQMd3WjsCxKiQ==:**********:1:2:0:", "**口香糖:10:10").payload
    expect(p.buyer_id).to_equal("55880710")
    expect(p.date).to_equal("2025-06-09")
    expect(p.items).to_equal({ { name = "口香糖", quantity = 10, unit_price = 10 } })
  end)
  it("T12 and T15: an item name split across the two codes, or cut at the end", function()
    local p = invoice("LV6115904911008120615000002f90000031f0000000042760988xbH+XMVPQiyxH1kzQo+tDQ==:**********:1:1:1:水上樂園門",
      "**票 (雲端發票-不含娛樂稅/應稅0.5:1:799 ").payload
    expect(p.items).to_equal({ { name = "水上樂園門票 (雲端發票-不含娛樂稅/應稅0.5", quantity = 1, unit_price = 799 } })
    local p15 = invoice("MF1687991111404137095000001f4000001f40000000034785923VG9sG89nFznfPnKYFRlsoA==:**********:2:2:1:蝦拉").payload
    expect(p15.items).to_equal({})
    expect(p15.note).to_equal("蝦拉")
    expect(p15.complete).to_be(false)
  end)
  it("T13: 7 of 14 items", function()
    local p = invoice("CF0677451911107104632000000fc000000fc00000000707752938btFhfsJbFqqto1bisUg2A==:**********:7:14:1:餐-雙層牛肉:1:65:零卡可-中:1:38:",
      "**配-經典中薯:1:17:餐-大麥克:1:75:零卡可-中:1:38:配-經典中薯:1:17:$2塑膠袋:1:2").payload
    expect(#p.items).to_be(7)
    expect(p.items[7]).to_equal({ name = "$2塑膠袋", quantity = 1, unit_price = 2 })
    expect({ p.item_count_in_codes, p.item_count_total }).to_equal({ 7, 14 })
  end)
  it("T14: JSON-escaped source text, right code just '**'", function()
    local p = invoice("OO3019294011003169587000009f800000a7888888888508654865OkJhFDsbbyPy0w\\/uXC\\/PQ==:**********:1:1:1:\\u52de\\u52d9(45233622375990):1:2680", "**").payload
    expect(p.buyer_id).to_equal("88888888")
    expect(p.items).to_equal({ { name = "勞務(45233622375990)", quantity = 1, unit_price = 2680 } })
    expect(p.complete).to_be(true)
  end)
  it("T16: seller valid only through the 7th-digit rule, padded fields", function()
    local p = invoice("UL202759031040422045500000000000000320000000097380574LCyi/QyEIfKcluYC0Lnb4A==:**********:5:5:1   ",
      "**:商品0002:1:1000:   ").payload
    expect(p.seller_id).to_equal("97380574")
    expect(p.seller_id_valid).to_be(true)
    expect(p.date).to_equal("2015-04-22")
    expect(p.items).to_equal({ { name = "商品0002", quantity = 1, unit_price = 1000 } })
  end)
end)

describe("tw-einvoice: edge cases", function()
  it("E9: a raw ':' inside a name is put back", function()
    local p = invoice(HEAD .. ":**********:2:2:1:Coffee: large:1:60:Tea:2:30").payload
    expect(p.items).to_equal({ { name = "Coffee: large", quantity = 1, unit_price = 60 }, { name = "Tea", quantity = 2, unit_price = 30 } })
  end)
  it("overseas e-commerce (flag 3) with its two amount fields", function()
    local p = invoice("AB1122334410205239999000000000000000000000000001234567ydXZt4LAN1UHN/j1juVcRA==:**********:1:1:3:0000000000:0000016B63:Cloud service:1:363.99").payload
    expect(p.encoding).to_equal("utf-8-overseas")
    expect(p.overseas_sales_amount).to_be(0.0)
    expect(p.overseas_total_amount).to_be(363.99)
    expect(p.items).to_equal({ { name = "Cloud service", quantity = 1, unit_price = 363.99 } })
  end)
  it("pairs codes of different frames within the window, in either order", function()
    einvoice.reset()
    local left = HEAD .. ":**********:3:3:1:乾電池:1:105:"
    local right = "**口罩:1:210:牛奶:1:25"
    local first = scan.simulate { text = right }
    expect(first.payload.waiting).to_be(true)
    local second = scan.simulate { text = left }
    expect(second.payload.items).to_equal(T1_ITEMS)
    einvoice.reset()
    local l = scan.simulate { text = left }
    expect(l.payload.complete).to_be(false)
    local r = scan.simulate { text = right }
    expect(r.payload.merged_into).to_equal("AB11223344")
    expect(r.payload.invoice.items).to_equal(T1_ITEMS)
    einvoice.reset()
  end)
end)

describe("tw-einvoice: more edge cases", function()
  it("E5: a custom area holding data", function()
    local p = invoice(HEAD .. ":POS0012345:1:1:1:Tea:1:30").payload
    expect(p.custom_area).to_equal("POS0012345")
    expect(p.items).to_equal({ { name = "Tea", quantity = 1, unit_price = 30 } })
  end)
  it("E13: a left code ending right after the custom area", function()
    local p = invoice(HEAD .. ":**********").payload
    expect({ p.custom_area, p.item_count_in_codes, p.encoding }).to_equal({ "**********" })
    expect(p.items).to_equal({})
    expect(p.valid).to_be(true)
  end)
  it("E14: percent-encoded separators", function()
    local p = invoice(HEAD .. "%3A**********%3A1%3A1%3A1%3A%E5%8F%A3%E7%BD%A9%3A1%3A210").payload
    expect(p.items).to_equal({ { name = "口罩", quantity = 1, unit_price = 210 } })
  end)
end)

describe("tw-einvoice: malformed codes give valid = false or pass", function()
  it("a left code of 17 characters", function()
    local p = invoice("AB11223344102052399").payload
    expect(p.valid).to_be(false)
    expect(p.problems[1]).to_equal("left code has 19 characters, shorter than its 77-character header")
  end)
  it("a non-hex amount", function()
    local p = invoice("AB11223344102052399990000XYZW000001540000000001234567ydXZt4LAN1UHN/j1juVcRA==:**********:1:1:1:x:1:1").payload
    expect(p.valid).to_be(false)
    expect(p.problems).to_contain("sales_amount '0000XYZW' is not 8 hex digits")
  end)
  it("a header with no ':' sections", function()
    local p = invoice(HEAD).payload
    expect(p.items).to_equal({})
    expect(p.encoding).to_be_nil()
    expect(p.valid).to_be(true)
  end)
  it("a Big5 flag with a truncated multi-byte right code", function()
    local p = invoice(HEAD .. ":**********:1:1:0:", hex.decode("2a2aa43a313a3330")).payload
    expect(p.valid).to_be(false)
    expect(p.problems[1]).to_match("^joined code: ")
  end)
  it("a right code without '**' is not claimed", function()
    expect(scan.simulate { bytes = hex.decode("e5a4a7e7a2973a313a3530") }.payload.type).to_equal("raw")
  end)
  it("an invalid date", function()
    local p = invoice("AB11223344102133099990000014400000154000000000123456").payload
    expect(p.problems).to_contain("date 1021330 is not a valid ROC yyyMMdd date")
  end)
end)

describe("tw-einvoice-barcode", function()
  it("reads period, number and random code (spec example)", function()
    local p = scan.simulate { symbology = "code39", text = "10404UZ176908720122" }.payload
    expect(p).to_equal({ type = "tw-einvoice-barcode", period = "10404", invoice_number = "UZ17690872", random_code = "0122",
                         year = 2015, months = { 3, 4 }, valid = true })
    expect(scan.simulate { symbology = "code39", text = "11003KH144038765057" }.payload.valid).to_be(false)
  end)
end)

describe("UBN check", function()
  it("accepts mod 10, mod 5 and the 7th-digit rule", function()
    for _, id in ipairs { "24789457", "28997723", "46038423", "82653921", "90650686", "39858516", "98952903", "28984678", "42760988", "70775293", "50865486", "34785923", "97380574" } do
      expect(einvoice.ubn_valid(id)).to_be(true)
    end
    expect(einvoice.ubn_valid("12345678")).to_be(false)
    expect(einvoice.ubn_valid("1234567")).to_be(false)
  end)
end)
