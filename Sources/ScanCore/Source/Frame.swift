import Foundation

/// Where a frame came from and when: what every symbol's event carries beside the symbol.
package struct FrameInfo: Equatable, Sendable {
    /// The file path, `-` for stdin, or the device.
    package var source: String
    /// The frame's index within its source (0 for a still image; an animated GIF's frame).
    package var index: Int
    /// A document's page (PDF, TIFF), from 1; nil for images and streams.
    package var page: Int?
    /// When the frame was captured (for files: when it was read).
    package var time: Date
    package var width: Int
    package var height: Int
    /// What the image decoder skipped or repaired (``GrayImage/warnings``); records carry them.
    package var warnings: [String] = []
    /// An image file's ``ContentHash`` (nil for a stream's frame): its deliveries' identity.
    package var content: String?

    package init(source: String, index: Int = 0, time: Date = Date(), width: Int = 0, height: Int = 0) {
        self.source = source
        self.index = index
        self.time = time
        self.width = width
        self.height = height
    }
}

/// A grayscale frame from a source, ready for the decoders.
package struct Frame: Sendable {
    package var info: FrameInfo
    package var image: GrayImage

    package init(info: FrameInfo, image: GrayImage) {
        self.info = info
        self.image = image
    }
}
