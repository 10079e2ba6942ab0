// The only Swift file that sends HTTP requests (libcurl, through CCurlShims).
internal import CCurlShims
import Foundation

/// What one request came to: the response status, or why there was none.
struct HTTPOutcome {
    var status: Int
    var failure: String?
    /// A failure no retry can mend (a URL libcurl refuses as malformed, a protocol it lacks).
    var permanent = false
}

/// Sends one request and waits for its response (at most `timeout` seconds).
/// The corresponding C function is `scanlua_http_request` (curl_easy_perform).
func sendHTTP(method: String, url: String, headers: [String], body: [UInt8], timeout: Double) -> HTTPOutcome {
    var response = scanlua_http_response()
    let cHeaders = headers.map { strdup($0) }
    defer { cHeaders.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = cHeaders.map { UnsafePointer($0) }
    pointers.withUnsafeMutableBufferPointer { headerBuffer in
        body.withUnsafeBytes { bodyBuffer in
            scanlua_http_request(method, url, headerBuffer.baseAddress, headerBuffer.count, bodyBuffer.baseAddress, bodyBuffer.count,
                                 max(1, Int(timeout * 1000)), &response)
        }
    }
    if response.curl_code != 0 {
        let message = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // CURLE_UNSUPPORTED_PROTOCOL (1), CURLE_URL_MALFORMAT (3)
        return HTTPOutcome(status: 0, failure: message, permanent: response.curl_code == 1 || response.curl_code == 3)
    }
    return HTTPOutcome(status: response.status, failure: nil)
}
