import Foundation

@testable import UniformTypes

enum Fixtures {
    static func path(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!.path
    }

    /// Bundled types plus the given fixture files.
    static func registry(_ names: String...) -> TypeRegistry {
        var builder = RegistryBuilder.bundled()
        for name in names { builder.add(DeclarationReader.read(path: path(name), source: .user)) }
        return builder.build()
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    }
}

/// A fresh temporary folder, removed when the test's closure returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("uti-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}
