import ScanCore
import XCTest
@testable import ScanPipeline

/// Issue 22 item 6: MQTT topics a broker would cut, refuse or drop are refused with their reason,
/// never reported as delivered.
final class ForwarderTests: XCTestCase {
    func refusal(topic: String) -> String? {
        let action = JSON.object([("type", .string("mqtt")), ("broker", .string("mqtt://127.0.0.1:1883")), ("topic", .string(topic)),
                                  ("payload", .string("x"))])
        switch Forwarder.request(from: action) {
        case .success: return nil
        case .failure(.permanent(let m)), .failure(.retryable(let m)): return m
        }
    }

    func testTopicsBrokersWouldMangleAreRefused() {
        XCTAssertNil(refusal(topic: "shop/ok"))
        XCTAssertEqual(refusal(topic: "shop/ok\u{0}/../evil"), "mqtt topic contains a NUL character (MQTT forbids it; it would be cut there)")
        XCTAssertEqual(refusal(topic: String(repeating: "t", count: 70_000)), "mqtt topic is 70000 bytes long; MQTT allows at most 65,535")
        XCTAssertNil(refusal(topic: String(repeating: "t", count: 65_535)))
        XCTAssertEqual(refusal(topic: "$SYS/broker/pwn"),
                       "mqtt topic '$SYS/broker/pwn' starts with '$': those topics are the broker's own ($SYS/...) and it drops what clients publish there")
        XCTAssertEqual(refusal(topic: "scan/#"), "mqtt needs a 'topic' string, not empty, without wildcards (+ #)")
        XCTAssertEqual(refusal(topic: ""), "mqtt needs a 'topic' string, not empty, without wildcards (+ #)")
    }
}
