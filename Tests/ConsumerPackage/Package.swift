// swift-tools-version:6.0
import PackageDescription

// A program written for the Mac that also builds on Linux, depending on uti
// the way README's "Library" section shows: Apple's framework on the Mac,
// uti's UniformTypeIdentifiers on Linux. .ci/run builds and runs it.
let package = Package(
    name: "notes-app",
    platforms: [.macOS(.v11)],
    dependencies: [.package(name: "uti", path: "../..")],
    targets: [
        .executableTarget(
            name: "notes-app",
            dependencies: [
                .product(name: "UniformTypeIdentifiers", package: "uti", condition: .when(platforms: [.linux])),
                // Beside Apple's API, uti's own module; both names stay unqualified.
                .product(name: "UniformTypes", package: "uti", condition: .when(platforms: [.linux])),
            ],
            resources: [.copy("Types.plist")]
        )
    ]
)
