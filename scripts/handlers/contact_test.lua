-- Vectors: ../shared/research/payloads.md §5.4 (zxing WifiParsedResultTestCase, segno issue 95)
-- and §5.5 (zxing AddressBook, Calendar parsed-result tests).
local contact = require "handlers.contact"

local function payload(text) return scan.simulate { text = text }.payload end

describe("wifi", function()
  it("reads the zxing vectors", function()
    expect(payload("WIFI:S:NoPassword;P:;T:;;")).to_equal({ type = "wifi", ssid = "NoPassword", auth = "nopass" })
    expect(payload("WIFI:S:Ten\\;\\;Chars;P:0123456789;T:WEP;;").ssid).to_equal("Ten;;Chars")
    expect(payload("WIFI:S:Ten\\:\\:Chars;P:0123456789;T:WEP;;").ssid).to_equal("Ten::Chars")
    expect(payload("WIFI:S:TenChars;P:hello\\;there;T:WEP;;").password).to_equal("hello;there")
    expect(payload("WIFI:T:WPA;S:TenChars;P:space is silent;;").password).to_equal("space is silent")
    expect(payload("WIFI:T:WPA;S:test;P:my_password\\\\;;").password).to_equal("my_password\\")
    expect(payload('WIFI:T:WPA;S:\\"foo\\;bar\\\\baz\\";;').ssid).to_equal('"foo;bar\\baz"')
  end)
  it("hidden networks and EAP", function()
    expect(payload("WIFI:T:WPA;S:home;P:pw;H:true;;").hidden).to_be(true)
    -- Issue 23: WPA3's transition-disable and SAE-PK fields are kept (WPA3 specification 3.0, Wi-Fi QR).
    expect(payload("WIFI:T:WPA;R:1;S:home;P:pw;K:MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgAD;;")).to_equal({
      type = "wifi", ssid = "home", password = "pw", auth = "WPA", transition_disable = "1", wpa3_only = true,
      sae_public_key = "MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgAD" })
    local p = payload("WIFI:T:WPA2-EAP;S:corp;P:pw;E:PEAP;PH2:MSCHAPV2;A:anon;I:alice;;")
    expect(p.eap).to_equal({ method = "PEAP", phase2 = "MSCHAPV2", anonymous_identity = "anon", identity = "alice" })
    expect(payload("WIFI:T:WPA2-EAP;S:corp;H:GTC;;").eap).to_equal({ phase2 = "GTC" })
  end)
  it("needs an SSID", function()
    expect(payload("WIFI:T:WPA;P:x;;").type).to_equal("raw")
  end)
end)

describe("contacts", function()
  it("MECARD", function()
    expect(payload("MECARD:N:Sean Owen;;").name).to_equal("Sean Owen")
    local p = payload("MECARD:NOTE:ZXing Team;N:Sean Owen;URL:google.com;EMAIL:srowen@example.org;;")
    expect(p).to_equal({ type = "contact", format = "mecard", name = "Sean Owen", urls = { "google.com" },
                         emails = { "srowen@example.org" }, note = "ZXing Team" })
    expect(payload("MECARD:N:Owen,Sean;TEL:+12125551212;TEL:+12125551213;ADR:a;ADR:b;BDAY:19760520;;")).to_equal({
      type = "contact", format = "mecard", name = "Sean Owen", phones = { "+12125551212", "+12125551213" },
      addresses = { { text = "a" }, { text = "b" } }, birthday = "19760520" })
    expect(payload("N:Sean Owen;TEL:+12125551212;;").type).to_equal("raw")
  end)
  it("BIZCARD", function()
    expect(payload("BIZCARD:N:Sean;X:Owen;C:Google;A:123 Main St;M:+12125551212;E:srowen@example.org;")).to_equal({
      type = "contact", format = "bizcard", name = "Sean Owen", org = "Google", addresses = { { text = "123 Main St" } },
      phones = { "+12125551212" }, emails = { "srowen@example.org" } })
  end)
  it("vCard names, escapes, quoted-printable and folding", function()
    expect(payload("BEGIN:VCARD\r\nVERSION:2.1\r\nN:Owen;Sean;T;Mr.;Esq.\r\nEND:VCARD").name).to_equal("Mr. Sean T Owen Esq.")
    expect(payload("begin:vcard\r\nversion:3.0\r\nfn:Sean\r\nend:vcard").name).to_equal("Sean")
    local p = payload("BEGIN:VCARD\r\nADR;HOME:123\\;\\\\ Main\\, St\\nHome\r\nEND:VCARD")
    expect(p.addresses).to_equal({ { text = "123;\\ Main, St\nHome", po_box = "123;\\ Main, St\nHome", type = "home" } })
    local qp = payload("BEGIN:VCARD\r\nADR;HOME;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:;;=38=38=20=4C=79=6E=62=72=6F=6F=6B=0D=0A=43=\r\n=4F=20=36=39=39=39=39=\r\n\r\nEND:VCARD")
    expect(qp.addresses).to_equal({ { text = "88 Lynbrook\r\nCO 69999", street = "88 Lynbrook\r\nCO 69999", type = "home" } })
    local t = payload("BEGIN:VCARD\r\nTEL;WORK:10\r\nN:Ow\r\n en;Sean\r\nEND:VCARD")
    expect(t.phones).to_equal({ { number = "10", type = "work" } })
    expect(t.name).to_equal("Sean Owen")
  end)
  -- Issue 23: vCard 4's tel: URIs and structured addresses, as RFC 6350 writes them.
  it("vCard 4 phones as tel: URIs and addresses with their parts", function()
    local p = payload("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Simon Perreault\r\nTEL;VALUE=uri;TYPE=\"work,voice\";PREF=1:tel:+1-418-656-9254;ext=102\r\n"
      .. "ADR;TYPE=work:;Suite D2-630;2875 Laurier;Quebec;QC;G1V 2M2;Canada\r\nEND:VCARD")
    expect(p.phones).to_equal({ { number = "+1-418-656-9254;ext=102", type = "work,voice" } })
    expect(p.addresses).to_equal({ { text = "Suite D2-630 2875 Laurier Quebec QC G1V 2M2 Canada", type = "work", extended = "Suite D2-630",
                                     street = "2875 Laurier", locality = "Quebec", region = "QC", postal_code = "G1V 2M2", country = "Canada" } })
  end)
end)

describe("calendar events", function()
  local function ev(lines) return payload("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n" .. lines .. "\r\nEND:VEVENT\r\nEND:VCALENDAR") end
  it("start and end as given: UTC, local, time zone, date", function()
    local p = ev("SUMMARY:foo\r\nDTSTART:20080504T123456Z\r\nDTEND:20080505T234555Z")
    expect(p.summary).to_equal("foo")
    expect(p.start).to_equal({ value = "20080504T123456Z", date_time = "2008-05-04T12:34:56Z", time_zone = "UTC" })
    expect(p["end"].date_time).to_equal("2008-05-05T23:45:55Z")
    expect(ev("DTSTART:20080504T123456").start.time_zone).to_be_nil()
    expect(ev("DTSTART;TZID=Europe/Vienna:20080504T123456").start.time_zone).to_equal("Europe/Vienna")
    expect(ev("DTSTART;VALUE=DATE:20080504").start).to_equal({ value = "20080504", date = "2008-05-04", all_day = true })
  end)
  it("duration, location, organizer, geo, escapes and folding", function()
    local p = payload("BEGIN:VEVENT\r\nSUMMARY:foo\\, bar\r\nDTSTART:20080504T123456Z\r\nDURATION:P1DT2H3M4S\r\nLOCATION:Miami\r\n  Beach\r\nORGANIZER:mailto:bob@example.org\r\nGEO:-12.345;-45.678\r\nDESCRIPTION:a\\nb\r\nEND:VEVENT")
    expect(p.summary).to_equal("foo, bar")
    expect(p.duration_seconds).to_be(93784)
    expect(p.location).to_equal("Miami Beach")
    expect(p.organizer).to_equal("bob@example.org")
    expect({ p.latitude, p.longitude }).to_equal({ -12.345, -45.678 })
    expect(p.description).to_equal("a\nb")
  end)
  it("a VEVENT without newlines is not an event", function()
    expect(payload("BEGIN:VEVENT SUMMARY:foo DTSTART:20080504T123456Z END:VEVENT").type).to_equal("raw")
  end)
end)
