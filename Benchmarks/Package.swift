// swift-tools-version:6.0
import PackageDescription

// In-process rates of the UniformTypes library and the first lookup of a
// new process, run by tools/bench/run-benchmarks.py.
let package = Package(
    name: "uti-benchmarks",
    dependencies: [.package(name: "uti", path: "..")],
    targets: [
        .executableTarget(
            name: "uti-bench",
            dependencies: [.product(name: "UniformTypes", package: "uti")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        ),
        // The first lookup of a new process through Apple's API.
        .executableTarget(
            name: "uti-first-lookup",
            dependencies: [.product(name: "UniformTypeIdentifiers", package: "uti")]
        ),
    ]
)
