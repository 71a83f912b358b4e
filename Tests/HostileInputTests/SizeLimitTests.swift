import DocumentHandlers
import Foundation
import PropertyLists
import SystemBase
import TestSupport
import Testing

@testable import SharedMIMEInfo
@testable import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

/// Files one byte past each size limit README gives: each is refused with an
/// error naming it and its size, before it is read (the files are sparse).
@Suite final class SizeLimitTests {
    let temporary = TemporaryFolder("uti-limits")
    var folder: String { temporary.path }

    init() throws {
        try temporary.makeFolder("mime/packages")
    }

    /// A sparse file of `size` bytes at `name` under the test folder.
    private func sparseFile(_ name: String, size: Int) throws -> String {
        let path = folder + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data("#".utf8)))
        #expect(truncate(path, off_t(size)) == 0)
        return path
    }

    @Test func propertyListPastTheLimitIsRefused() throws {
        let limit = PropertyListLimits.standard.maximumBytes
        #expect(limit == 64 << 20)
        let path = try sparseFile("big.plist", size: limit + 1)
        let reader = DeclarationReader.read(path: path, source: .user)
        #expect(
            reader.diagnostics.map(\.description) == ["\(path): error: is \(limit + 1) bytes; the limit is \(limit)"])
        #expect(reader.declarations.isEmpty)
    }

    @Test func keyFilePastTheLimitIsRefused() throws {
        let path = try sparseFile("big.desktop", size: KeyFile.maximumBytes + 1)
        #expect(KeyFile.maximumBytes == 4 << 20)
        #expect(throws: FileContents.ReadError.self) { try KeyFile.read(path: path) }
    }

    @Test func mimeTypesPastTheLimitIsRefused() throws {
        #expect(MIMETypesFile.sizeLimit == 8 << 20)
        let path = try sparseFile("mime.types", size: MIMETypesFile.sizeLimit + 1)
        let (records, diagnostics) = MIMETypesFile.read(path: path)
        #expect(records.isEmpty)
        #expect(
            diagnostics.map(\.description) == ["\(path): error: is \((8 << 20) + 1) bytes; the limit is \(8 << 20)"])
    }

    /// A cache past its limit gives way to the package files, with an error.
    @Test func mimeCachePastTheLimitGivesWayToPackages() throws {
        let package = """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
              <mime-type type="text/x-small"><glob pattern="*.small"/></mime-type>
            </mime-info>
            """
        try Data(package.utf8).write(to: URL(fileURLWithPath: folder + "/mime/packages/small.xml"))
        #expect(MIMECacheReader.sizeLimit == 64 << 20)
        let cache = try sparseFile("mime/mime.cache", size: MIMECacheReader.sizeLimit + 1)
        var diagnostics: [Diagnostic] = []
        let layer = try #require(MIMELayerLoader.load(directory: folder + "/mime", diagnostics: &diagnostics))
        #expect(layer.types == ["text/x-small"])
        #expect(
            diagnostics.map(\.description) == [
                "\(cache): error: is \((64 << 20) + 1) bytes; the limit is \(64 << 20); reading \(folder)/mime/packages instead"
            ])
    }

    /// `types` and `treemagic` (read beside a cache) past their limit are
    /// skipped, each with an error.
    @Test func mimeTextFilesPastTheLimitAreSkipped() throws {
        #expect(MIMELayerLoader.textFileLimit == 8 << 20)
        let types = try sparseFile("mime/types", size: MIMELayerLoader.textFileLimit + 1)
        let treemagic = try sparseFile("mime/treemagic", size: MIMELayerLoader.textFileLimit + 1)
        var layer = MIMELayer(directory: folder + "/mime", format: .cache)
        layer.types = ["text/x-small"]
        var diagnostics: [Diagnostic] = []
        MIMELayerLoader.completeFromTextFiles(&layer, diagnostics: &diagnostics)
        #expect(layer.types == ["text/x-small"])
        #expect(layer.treeMagic.isEmpty)
        #expect(
            diagnostics.map(\.description) == [
                "\(types): error: is \((8 << 20) + 1) bytes; the limit is \(8 << 20); the file is skipped",
                "\(treemagic): error: is \((8 << 20) + 1) bytes; the limit is \(8 << 20); the file is skipped",
            ])
    }

    @Test func mimePackagePastTheLimitIsSkipped() throws {
        #expect(MIMEPackageReader.sizeLimit == 32 << 20)
        let path = try sparseFile("mime/packages/big.xml", size: MIMEPackageReader.sizeLimit + 1)
        var layer = MIMELayer(directory: folder + "/mime", format: .packages)
        var diagnostics: [Diagnostic] = []
        MIMEPackageReader.read(path: path, into: &layer, diagnostics: &diagnostics)
        #expect(
            diagnostics.map(\.description) == ["\(path): error: is \((32 << 20) + 1) bytes; the limit is \(32 << 20)"])
        #expect(layer.types.isEmpty)
    }
}
