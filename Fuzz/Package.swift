// swift-tools-version:6.0
import PackageDescription

// libFuzzer drivers, one executable per input format. Built and run by
// tools/fuzz.sh (with -sanitize=fuzzer,address).
let drivers: [(name: String, products: [String])] = [
    ("fuzz-xml-plist", ["PropertyLists", "UniformTypes"]),
    ("fuzz-binary-plist", ["PropertyLists", "UniformTypes"]),
    ("fuzz-mime-package", ["SharedMIMEInfo"]),
    ("fuzz-mime-cache", ["SharedMIMEInfo"]),
    ("fuzz-mime-text", ["SharedMIMEInfo", "UniformTypes"]),
    ("fuzz-desktop-entry", ["DocumentHandlers"]),
    ("fuzz-magic", ["SharedMIMEInfo"]),
    ("fuzz-dynamic-identifier", ["UniformTypes"]),
    ("fuzz-registry-image", ["UniformTypes"]),
]

let package = Package(
    name: "uti-fuzz",
    dependencies: [.package(name: "uti", path: "..")],
    targets: [
        // Hands each input to the driver's body through LLVMFuzzerRunDriver.
        .target(name: "FuzzDriver"),
        // What the drivers do with what they parsed: lookups, as a user would.
        .target(
            name: "FuzzExercises",
            dependencies: ["PropertyLists", "SharedMIMEInfo", "UniformTypes"].map { .product(name: $0, package: "uti") }
        ),
    ]
        + drivers.map { driver in
            .executableTarget(
                name: driver.name,
                dependencies: ["FuzzDriver", "FuzzExercises"]
                    + driver.products.map { .product(name: $0, package: "uti") }
            )
        }
)
