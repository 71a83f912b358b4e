// swift-tools-version:6.0
import PackageDescription

// In-process rates of the UniformTypes library, run by tools/bench/run-benchmarks.py.
let package = Package(
    name: "uti-benchmarks",
    dependencies: [.package(name: "uti", path: "..")],
    targets: [
        .executableTarget(
            name: "uti-bench",
            dependencies: [.product(name: "UniformTypes", package: "uti")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])]
        )
    ]
)
