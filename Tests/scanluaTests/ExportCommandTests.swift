import Foundation
import XCTest

/// Issue 24 item 3: read-only commands never create a database, and a --type that matches
/// nothing says which types there are.
final class ExportCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func testADatabaseThatDoesNotExistIsRefusedAndNotCreated() throws {
        let typo = dir.appendingPathComponent("hosehold.db").path
        for args in [["export", "--db", typo], ["outbox", "--db", typo], ["outbox", "--flush", "--db", typo]] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, args.joined(separator: " "))
            XCTAssertEqual(r.stdout, "", "no header row")
            XCTAssertTrue(r.stderr.contains("scanlua: \(typo): no such database"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: typo), "\(args.joined(separator: " ")) created it")
        }
    }

    func testATypeThatMatchesNothingListsTheTypesPresent() throws {
        let db = dir.appendingPathComponent("h.db").path
        let scan = try CLI.run(["scan", "-q", "--db", db, CLI.fixture("ean13.png"), CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg").path])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        let wrong = try CLI.run(["export", "--db", db, "--type", "einvoice"])
        XCTAssertEqual(wrong.status, 0)
        XCTAssertEqual(wrong.stdout, "time,source,frame,page,symbology,text,bytes,payload_type,payload,actions\r\n")
        XCTAssertEqual(wrong.stderr, "scanlua: --type einvoice: no scan has that payload type; the history of \(db) has product, tw-einvoice, tw-einvoice-right\n")
        let right = try CLI.run(["export", "--db", db, "--type", "tw-einvoice", "--format", "ndjson"])
        XCTAssertEqual(right.stderr, "")
        XCTAssertEqual(right.stdout.split(separator: "\n").count, 1, "the invoice's left code")
    }
}
