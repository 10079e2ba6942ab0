import Foundation
import ScanCore

/// Paths of the images made by scripts/make-fixtures.
enum Fixture {
    static func path(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil)!.path
    }

    static func image(_ name: String) throws -> GrayImage {
        try ImageLoader().load(path: path(name))
    }

    /// Decodes a fixture with every default symbology (plus `extra`).
    static func symbols(_ name: String, extra: [String] = []) throws -> [Symbol] {
        let set = Symbology.defaultSet.union(extra.map(Symbology.init(rawValue:)))
        return ZBarDecoder(symbologies: set).decode(try image(name))
    }
}
