// swift-tools-version:6.0
// scanlua: a Lua-scriptable barcode and QR scanning engine for Linux.
// Every dependency is a Debian C library (see scripts/install-deps); no Swift package is fetched.
// Targets follow the pipeline (docs/architecture.md): ScanCore -> ScanScript -> ScanPipeline -> scanlua.
import PackageDescription

let package = Package(
    name: "scanlua",
    products: [
        .executable(name: "scanlua", targets: ["scanlua"]),
        // The engine as a Swift library (docs/embedding.md): the only public API of the package.
        .library(name: "ScanluaKit", targets: ["ScanluaKit"]),
    ],
    targets: [
        // One system-library target per C library; nothing else lives in them.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // zxing-cpp 3.1.1, built from its source package by scripts/install-deps (C API, static, C++).
        .systemLibrary(name: "CZXing", pkgConfig: "zxing"),
        // One C shim target per C library, for what Swift cannot call (setjmp, macros, ioctl).
        .target(name: "CImageShims", dependencies: ["CJPEG", "CPNG", "CTIFF", "CWebP", "CHeif", "CGif"]),
        .target(name: "CLuaShims", dependencies: ["CLua"]),
        .target(name: "CV4L2Shims"),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        // Frames, image loading, decoders, sources, the session filter and the registries. No Lua.
        .target(name: "ScanCore", dependencies: ["CZBar", "CZXing", "CImageShims", "CV4L2Shims"]),
        .target(name: "ScanStore", dependencies: ["CSQLite", "CLibPQ"]),
        // The Lua runtime: state, sandbox, limits, the `scan` API, helper modules.
        .target(name: "ScanScript", dependencies: ["ScanCore", "ScanStore", "CLuaShims"],
                resources: [
                    .embedInCode("Prelude/views.lua"), .embedInCode("Prelude/registry.lua"),
                    .embedInCode("Prelude/dispatch.lua"), .embedInCode("Prelude/frames.lua"),
                    .embedInCode("Prelude/sandbox.lua"), .embedInCode("Prelude/modules.lua"),
                    .embedInCode("Prelude/testing.lua"),
                ]),
        // ScanSession: source -> decoders -> filter -> scripts -> store -> actions -> sinks.
        .target(name: "ScanPipeline", dependencies: ["ScanCore", "ScanScript", "ScanStore", "CCurlShims", "CMosquitto", "CHiredis", "CMicroHTTPD"]),
        // The library: settings, an engine, typed records; everything else is `package`.
        .target(name: "ScanluaKit", dependencies: ["ScanPipeline", "ScanScript", "ScanCore"]),
        // The CLI: flag parsing, then a ScanSession.
        .executableTarget(name: "scanlua", dependencies: ["ScanPipeline", "ScanCore", "ScanScript"]),
        // Fuzz targets for the loaders and the JSON code: libFuzzer under `make fuzz`, else a replayer.
        .executableTarget(name: "scanlua-fuzz", dependencies: ["ScanCore"]),
        .testTarget(name: "ScanCoreTests", dependencies: ["ScanCore"], resources: [.copy("Fixtures"), .copy("Linear")]),
        .testTarget(name: "ScanScriptTests", dependencies: ["ScanScript"]),
        .testTarget(name: "ScanStoreTests", dependencies: ["ScanStore"]),
        .testTarget(name: "ScanPipelineTests", dependencies: ["ScanPipeline"]),
        .testTarget(name: "ScanluaKitTests", dependencies: ["ScanluaKit"]),
        .testTarget(name: "scanluaTests", dependencies: ["scanlua", "scanlua-fuzz", "ScanStore", "ScanCore"], exclude: ["Lua", "Golden", "Servers"]),
    ]
)
