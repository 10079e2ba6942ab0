// swift-tools-version:6.0
// scanlua: a Lua-scriptable barcode and QR scanning engine for Linux.
// Every dependency is a Debian C library (see scripts/install-deps); no Swift package is fetched.
import PackageDescription

let package = Package(
    name: "scanlua",
    products: [
        .executable(name: "scanlua", targets: ["scanlua"]),
    ],
    targets: [
        // One system-library target per C library; nothing else lives in them.
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CLua", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The one C target: what Swift cannot import (setjmp error handling, macros).
        .target(name: "CScanShims", dependencies: ["CJPEG", "CPNG", "CLua"]),
        .target(name: "ScanCore", dependencies: ["CZBar", "CScanShims"]),
        .target(name: "ScanStore", dependencies: ["CSQLite"]),
        .target(name: "ScanScript", dependencies: ["ScanCore", "ScanStore", "CScanShims"],
                resources: [.embedInCode("Engine/prelude.lua")]),
        .executableTarget(name: "scanlua", dependencies: ["ScanCore", "ScanScript"]),
        .testTarget(name: "ScanCoreTests", dependencies: ["ScanCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ScanScriptTests", dependencies: ["ScanScript"]),
        .testTarget(name: "ScanStoreTests", dependencies: ["ScanStore"]),
        .testTarget(name: "scanluaTests", dependencies: ["scanlua", "ScanStore"], exclude: ["Lua"]),
    ]
)
