// swift-tools-version:6.0
// A Swift program that embeds scanlua: the project's own package, by path (docs/embedding.md).
import PackageDescription

let package = Package(
    name: "scan-images",
    dependencies: [.package(name: "scanlua", path: "../..")],
    targets: [
        .executableTarget(name: "scan-images", dependencies: [.product(name: "ScanluaKit", package: "scanlua")]),
    ]
)
