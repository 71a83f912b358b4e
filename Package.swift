// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "uti",
    products: [
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "UniformTypes", targets: ["UniformTypes"]),
        .library(name: "PropertyLists", targets: ["PropertyLists"]),
        .library(name: "SharedMIMEInfo", targets: ["SharedMIMEInfo"]),
        .library(name: "InboxProcessing", targets: ["InboxProcessing"]),
        .library(name: "DocumentHandlers", targets: ["DocumentHandlers"]),
        .library(name: "FolderWatching", targets: ["FolderWatching"]),
        .executable(name: "uti", targets: ["uti"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2")
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // The only code that sees libxml2's headers; Swift sees opaque handles.
        .target(name: "CXMLShim", dependencies: ["CLibXML2"]),
        // What every module shares with the system: errors of system calls,
        // the environment variables read, the XDG folders, reading files;
        // names in folders, open folders, the settle rules, stopping a watch.
        .target(name: "SystemBase", dependencies: ["CLinuxCalls"]),
        .target(name: "PropertyLists", dependencies: ["CXMLShim", "SystemBase"]),
        // Flat images read in place: the compiled registry and its caches.
        .target(name: "CompiledData", dependencies: ["SystemBase", "CLinuxCalls"]),
        .target(name: "SharedMIMEInfo", dependencies: ["CXMLShim", "SystemBase", "CompiledData"]),
        // Linux calls glibc declares only under _GNU_SOURCE (renameat2, O_TMPFILE, leases, signalfd),
        // and the executable's build ID.
        .target(name: "CLinuxCalls"),
        .target(
            name: "UniformTypes",
            dependencies: ["SystemBase", "PropertyLists", "SharedMIMEInfo", "CompiledData", "CLinuxCalls"]),
        // Apple's UTType API over the registry, for code written for the Mac.
        .target(name: "UniformTypeIdentifiers", dependencies: ["UniformTypes", "SystemBase", "PropertyLists"]),
        .target(name: "InboxProcessing", dependencies: ["SystemBase", "CLinuxCalls"]),
        // Settled, typed changes to folders, by the inbox's settle rules.
        .target(
            name: "FolderWatching", dependencies: ["UniformTypes", "SystemBase", "CLinuxCalls"]),
        .target(
            name: "DocumentHandlers", dependencies: ["UniformTypes", "SystemBase", "PropertyLists", "CLinuxCalls"]),
        .executableTarget(
            name: "uti",
            dependencies: [
                "SystemBase",
                "UniformTypes",
                "InboxProcessing",
                "FolderWatching",
                "DocumentHandlers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the tests share: temporary folders, running a built program.
        // Gives each test process a HOME and XDG folders of its own (Tests/TestEnvironment/TestEnvironment.c).
        .target(name: "TestEnvironment", path: "Tests/TestEnvironment"),
        .target(name: "TestSupport", dependencies: ["TestEnvironment"], path: "Tests/TestSupport"),
        .testTarget(
            name: "SystemBaseTests",
            dependencies: ["SystemBase"]
        ),
        .testTarget(
            name: "PropertyListsTests",
            dependencies: ["PropertyLists"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SharedMIMEInfoTests",
            dependencies: ["SharedMIMEInfo"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "UniformTypesTests",
            dependencies: ["UniformTypes", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // Code written against Apple's framework, compiled and run unchanged;
        // the example program is run with its Info.plist in each documented place.
        .executableTarget(name: "uti-example-app", dependencies: ["UniformTypeIdentifiers"], path: "Tests/ExampleApp"),
        .testTarget(
            name: "UniformTypeIdentifiersTests",
            dependencies: ["UniformTypeIdentifiers", "uti-example-app", "TestSupport"]
        ),
        // The code of the DocC articles, compiled and run (tools/extract-article-code.py).
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "UniformTypeIdentifiers", "UniformTypes", "InboxProcessing", "FolderWatching", "DocumentHandlers",
            ]
        ),
        .testTarget(
            name: "InboxProcessingTests",
            dependencies: ["InboxProcessing", "SystemBase", "TestSupport"]
        ),
        .testTarget(
            name: "FolderWatchingTests",
            dependencies: ["FolderWatching", "TestSupport"]
        ),
        .testTarget(
            name: "DocumentHandlersTests",
            dependencies: ["DocumentHandlers", "TestSupport"]
        ),
        // Hand-made hostile files for every reader, with proof that nothing
        // outside a document is read (tools/make-hostile-corpus.py).
        .testTarget(
            name: "HostileInputTests",
            dependencies: [
                "SystemBase", "CompiledData", "PropertyLists", "SharedMIMEInfo", "UniformTypes", "DocumentHandlers",
                "TestSupport", "uti",
            ],
            resources: [.copy("Corpus")]
        ),
        .testTarget(
            name: "utiTests",
            dependencies: ["uti", "TestSupport", "SystemBase", "UniformTypes"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
