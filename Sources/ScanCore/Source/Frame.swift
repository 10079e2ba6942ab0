import Foundation

/// Where a frame came from and when: what every symbol's event carries beside the symbol.
public struct FrameInfo: Equatable, Sendable {
    /// The file path, `-` for stdin, or the device.
    public var source: String
    /// The frame's index within its source (0 for a still image).
    public var index: Int
    /// When the frame was captured (for files: when it was read).
    public var time: Date
    public var width: Int
    public var height: Int
    /// What the image decoder skipped or repaired (``GrayImage/warnings``); records carry them.
    public var warnings: [String] = []
    /// An image file's ``ContentHash`` (nil for a stream's frame): its deliveries' identity.
    public var content: String?

    public init(source: String, index: Int = 0, time: Date = Date(), width: Int = 0, height: Int = 0) {
        self.source = source
        self.index = index
        self.time = time
        self.width = width
        self.height = height
    }
}

/// A grayscale frame from a source, ready for the decoders.
public struct Frame: Sendable {
    public var info: FrameInfo
    public var image: GrayImage

    public init(info: FrameInfo, image: GrayImage) {
        self.info = info
        self.image = image
    }
}
