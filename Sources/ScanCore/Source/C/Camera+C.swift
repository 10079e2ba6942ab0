// The only Swift file that calls the V4L2 camera shim.
// Linux only (docs/portability.md): V4L2 is Linux's camera API; the #else branch below is what
// another system builds (a camera there would be read through AVFoundation).
#if os(Linux)
internal import CV4L2Shims
import Foundation
import Synchronization

/// A V4L2 camera (`/dev/videoN`): GREY, YUYV or MJPEG frames, luma to the decoders.
/// Live: frames the driver had to drop while decoding was behind are counted from its sequence numbers.
package final class CameraSource: FrameSource {
    package let name: String
    package var isLive: Bool { true }
    package private(set) var dropped = 0
    private let camera: OpaquePointer
    private let fourcc: UInt32, width: Int, height: Int, stride: Int
    private var lastSequence: UInt32?
    private var index = 0
    private let loader = ImageLoader()
    /// Torch commands from other threads (the preview page's switch), carried out by the thread
    /// that reads frames, between two frames: only that thread touches the device while it runs.
    private let torchRequests = Mutex<[(on: Bool, done: TorchReply)]>([])

    /// Where a torch command's outcome goes back to the thread that asked.
    final class TorchReply: Sendable {
        let done = DispatchSemaphore(value: 0)
        let error = Mutex<SourceError?>(nil)
    }

    /// Opens the device and starts streaming at about `width` x `height` (0 = its current size).
    /// - Throws: a message that names the device and what to do (missing, busy, permission, format).
    package init(device: String, width: Int = 0, height: Int = 0) throws(SourceError) {
        name = device
        var status: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        guard let c = scanlua_camera_open(device, UInt32(width), UInt32(height), &status, &message, message.count) else {
            throw SourceError(Self.explain(device: device, status: status, detail: text(message)))
        }
        camera = c
        var f: UInt32 = 0, w: UInt32 = 0, h: UInt32 = 0, bpl: UInt32 = 0
        scanlua_camera_format(c, &f, &w, &h, &bpl)
        fourcc = f
        self.width = Int(w)
        self.height = Int(h)
        stride = bpl > 0 ? Int(bpl) : Int(w) * (f == Self.fourcc("YUYV") ? 2 : 1)
    }

    deinit { scanlua_camera_close(camera) }

    /// What a person should read for each failure to open (the counterpart of a mobile permission prompt).
    static func explain(device: String, status: Int32, detail: String) -> String {
        switch status {
        case SCANLUA_CAM_NO_DEVICE:
            return "\(device): no such camera (\(detail)); `scanlua devices` lists the cameras there are"
        case SCANLUA_CAM_BUSY:
            return "\(device): the camera is busy: another program is using it (\(detail)); close it and try again"
        case SCANLUA_CAM_PERMISSION:
            let group = groupName(of: device) ?? "video"
            return "\(device): permission denied: cameras are for members of the '\(group)' group; "
                + "run `sudo usermod -aG \(group) $USER`, then log out and in again"
        case SCANLUA_CAM_NOT_CAPTURE:
            return "\(device): not a camera: \(detail)"
        case SCANLUA_CAM_FORMAT:
            return "\(device): unsupported pixel format: \(detail)"
        default:
            return "\(device): cannot capture: \(detail)"
        }
    }

    static func groupName(of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, let g = getgrgid(st.st_gid) else { return nil }
        return String(cString: g.pointee.gr_name)
    }

    static func fourcc(_ s: String) -> UInt32 {
        s.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        var message = [CChar](repeating: 0, count: 512)
        while true {
            for request in torchRequests.withLock({ r -> [(on: Bool, done: TorchReply)] in defer { r = [] }; return r }) {
                do { try setTorch(request.on) } catch { request.done.error.withLock { $0 = error } }
                request.done.done.signal()
            }
            let wait = deadline.map { max(0, Int($0.timeIntervalSinceNow * 1000)) } ?? 2000
            var data: UnsafePointer<UInt8>?
            var length = 0
            var sequence: UInt32 = 0
            let rc = scanlua_camera_next(camera, Int32(min(wait, 2000)), &data, &length, &sequence, &message, message.count)
            if rc < 0 { throw SourceError("\(name): \(text(message))") }
            if rc == 1 {
                if let deadline, deadline.timeIntervalSinceNow <= 0 { return nil }
                continue
            }
            if let last = lastSequence, sequence > last + 1 { dropped += Int(sequence - last - 1) }
            lastSequence = sequence
            let bytes = UnsafeBufferPointer(start: data, count: length)
            let image: GrayImage
            switch fourcc {
            case Self.fourcc("GREY"):
                image = GrayImage(width: width, height: height, pixels: rows(bytes, step: 1))
            case Self.fourcc("YUYV"):
                image = GrayImage(width: width, height: height, pixels: rows(bytes, step: 2))
            default:
                do { image = try loader.decode(Data(bytes), name: "\(name) frame \(index)") } catch {
                    scanlua_camera_release(camera)
                    continue  // a damaged MJPEG frame: skip it
                }
            }
            scanlua_camera_release(camera)
            defer { index += 1 }
            return .frame(Frame(info: FrameInfo(source: name, index: index, time: Date(), width: image.width, height: image.height), image: image))
        }
    }

    /// Luma samples: every `step`-th byte of each row (YUYV puts Y in even bytes).
    private func rows(_ bytes: UnsafeBufferPointer<UInt8>, step: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let base = y * stride
            guard base + (width - 1) * step < bytes.count else { break }
            for x in 0..<width { out[y * width + x] = bytes[base + x * step] }
        }
        return out
    }

    /// Whether the camera has a torch control. The corresponding C function is `scanlua_camera_has_torch`.
    package var hasTorch: Bool { scanlua_camera_has_torch(camera) == 1 }

    /// Asks the reading thread to switch the torch (from any thread) and waits for it, at most
    /// 3 s (it reads a frame at least every 2 s).
    package func requestTorch(_ on: Bool) throws(SourceError) {
        let reply = TorchReply()
        torchRequests.withLock { $0.append((on, reply)) }
        guard reply.done.wait(timeout: .now() + 3) == .success else {
            throw SourceError("\(name): the camera did not take the torch command within 3 s")
        }
        if let error = reply.error.withLock({ $0 }) { throw error }
    }

    /// Switches the torch on or off, on the calling thread: before the scan starts (`--torch`) or
    /// from the reading thread. The corresponding control is V4L2_CID_FLASH_LED_MODE.
    package func setTorch(_ on: Bool) throws(SourceError) {
        var message = [CChar](repeating: 0, count: 512)
        guard scanlua_camera_torch(camera, on ? 1 : 0, &message, message.count) == 0 else {
            throw SourceError("\(name): \(text(message))")
        }
    }

    /// The cameras under /dev (video*), each with its name and formats, or the reason it cannot be read.
    package static func describeAll() -> [(device: String, description: String)] {
        let devices = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("video") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        return devices.map { d in
            let path = "/dev/" + d
            var card = [CChar](repeating: 0, count: 256), out = [CChar](repeating: 0, count: 8192)
            var message = [CChar](repeating: 0, count: 512)
            let status = scanlua_camera_describe(path, &card, card.count, &out, out.count, &message, message.count)
            if status != SCANLUA_CAM_OK { return (path, explain(device: path, status: status, detail: text(message))) }
            return (path, text(card) + "\n" + text(out))
        }
    }
}

@available(*, unavailable) extension CameraSource: Sendable {}

/// A NUL-terminated C buffer as text.
private func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

#else
import Foundation

/// Cameras are read through V4L2, which only Linux has: on other systems opening one says so.
package final class CameraSource: FrameSource {
    package let name: String
    package var isLive: Bool { true }
    package var dropped: Int { 0 }
    package init(device: String, width: Int = 0, height: Int = 0) throws(SourceError) {
        throw SourceError("\(device): cameras are read through V4L2, on Linux only (docs/portability.md)")
    }
    package func next(deadline: Date?) throws(SourceError) -> SourceItem? { nil }
    package var hasTorch: Bool { false }
    package func requestTorch(_ on: Bool) throws(SourceError) {}
    package func setTorch(_ on: Bool) throws(SourceError) {}
    package static func describeAll() -> [(device: String, description: String)] { [] }
}
#endif
