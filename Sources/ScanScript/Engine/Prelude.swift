/// The prelude's chunks, one job each, run in this order by every engine (see
/// Sources/ScanScript/Prelude/*.lua; each starts `local host, core = ...`).
enum Prelude {
    struct Chunk {
        let name: String
        let source: [UInt8]
    }

    static let chunks: [Chunk] = [
        Chunk(name: "views", source: PackageResources.views_lua),
        Chunk(name: "registry", source: PackageResources.registry_lua),
        Chunk(name: "dispatch", source: PackageResources.dispatch_lua),
        Chunk(name: "frames", source: PackageResources.frames_lua),
        Chunk(name: "sandbox", source: PackageResources.sandbox_lua),
        Chunk(name: "modules", source: PackageResources.modules_lua),
    ]

    /// describe/it/expect: loaded by `scanlua test` only.
    static let testing = Chunk(name: "testing", source: PackageResources.testing_lua)
}
