import Foundation
import Glibc
import TestSupport

@testable import InboxProcessing

/// A Documents folder with an Inbox in a fresh temporary folder, and
/// helpers that work on names as bytes.
final class Tree {
    let folder: TemporaryFolder
    var root: String { folder.path }
    var documents: String { root + "/Documents" }
    var inbox: String { documents + "/Inbox" }
    /// The record folder of the runs the tests make.
    var records: String { root + "/records" }

    init(base: String = NSTemporaryDirectory(), inbox: Bool = true) {
        folder = TemporaryFolder("uti-inbox", base: base)
        mkdir(documents, 0o755)
        if inbox { mkdir(self.inbox, 0o755) }
    }

    /// Writes `contents` to `folder/name` (a name given as bytes), with an
    /// old change time unless `fresh`.
    func write(_ folder: String, _ name: [UInt8], _ contents: String, mode: mode_t = 0o644) {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name
        // A descriptor no child process inherits, so that no program another
        // test starts holds the file open for writing.
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        precondition(fd >= 0, "cannot create \(String(decoding: path, as: UTF8.self)): \(errno)")
        let bytes = Array(contents.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func write(_ folder: String, _ name: String, _ contents: String, mode: mode_t = 0o644) {
        write(folder, Array(name.utf8), contents, mode: mode)
    }

    /// The names in `folder` as bytes, sorted.
    func names(_ folder: String) -> [[UInt8]] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [46] && name != [46, 46] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func textNames(_ folder: String) -> [String] { names(folder).map { String(decoding: $0, as: UTF8.self) } }

    func read(_ folder: String, _ name: [UInt8]) -> String? {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name
        let fd = path.withCString { open($0, O_RDONLY) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
    }

    func read(_ folder: String, _ name: String) -> String? { read(folder, Array(name.utf8)) }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    func status(_ path: String) -> stat {
        var info = stat()
        precondition(lstat(path, &info) == 0)
        return info
    }

    /// Removes a tree without following links, however deep.
    func remove(_ path: String) { TemporaryFolder.removeTree(path) }
}

/// Extensions the tests treat as known, as a registry would.
func knownExtensions(_ bytes: ArraySlice<UInt8>) -> Bool {
    ["tar.gz", "gz", "pdf", "txt", "app"].contains(String(decoding: bytes, as: UTF8.self))
}

func processor(
    _ tree: Tree, settle: Double = 0, configure: (inout InboxProcessor.Options) -> Void = { _ in }
)
    -> InboxProcessor
{
    var options = InboxProcessor.Options()
    options.settle = SettlePolicy(interval: settle)
    options.recordFolder = tree.records
    configure(&options)
    return InboxProcessor(documents: tree.documents, options: options, isKnownExtension: knownExtensions)
}

/// Runs one pass and returns its reports by name, and its summary.
func run(
    _ processor: InboxProcessor
) throws -> (reports: [FileName: InboxProcessor.ItemReport], summary: InboxProcessor.Summary) {
    var reports: [FileName: InboxProcessor.ItemReport] = [:]
    let summary = try processor.run { event in
        if case .item(let report) = event { reports[report.name] = report }
    }
    return (reports, summary)
}

extension InboxProcessor.Outcome {
    var destination: String? {
        switch self {
        case .moved(let to, _), .wouldMove(let to): return String(decoding: to.bytes, as: UTF8.self)
        default: return nil
        }
    }
}

/// The target of the symbolic link at `path`, nil when it is not one.
func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink(path, &buffer, buffer.count)
    guard n >= 0 else { return nil }
    return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
