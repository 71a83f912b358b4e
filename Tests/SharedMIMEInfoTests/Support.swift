import Foundation

@testable import SharedMIMEInfo

enum Fixtures {
    static func path(_ relative: String) -> String {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/" + relative).path
    }

    /// The fixture package read from its XML.
    static let fromXML: MIMEDatabase = {
        var diagnostics: [Diagnostic] = []
        let layer = MIMELayerLoader.load(directory: path("system/mime"), diagnostics: &diagnostics)!
        return MIMEDatabase(layers: [layer], diagnostics: diagnostics)
    }()

    /// The same package compiled by update-mime-database.
    static let fromCache: MIMEDatabase = {
        var diagnostics: [Diagnostic] = []
        let layer = MIMELayerLoader.load(directory: path("compiled/mime"), diagnostics: &diagnostics)!
        return MIMEDatabase(layers: [layer], diagnostics: diagnostics)
    }()
}

extension MIMEDatabase {
    func sniffType(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { sniff($0).mimeType }
    }

    func guess(_ name: String?, _ bytes: [UInt8]?) -> Guess {
        guard let bytes else { return guess(name: name, data: nil) }
        return bytes.withUnsafeBytes { guess(name: name, data: $0) }
    }
}

func withTemporaryDirectory(_ body: (String) throws -> Void) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("uti-mime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try body(dir.path)
}
