import Foundation
import Testing

@testable import SharedMIMEInfo

/// The code of each way a `mime.cache` cannot be read, as
/// `MIMECacheReader.read` reports it.
@Suite struct MIMECacheErrorCodeTests {
    private static func failure(_ path: String) -> MIMECacheReader.Failure? {
        var layer = MIMELayer(directory: "/x", format: .cache)
        do {
            try MIMECacheReader.read(path: path, into: &layer)
            return nil
        } catch {
            return error
        }
    }

    /// The fixture cache with `edit` applied, written to `name` in `folder`.
    private static func cache(in folder: String, _ name: String, _ edit: (inout [UInt8]) -> Void) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("compiled/mime/mime.cache"))))
        edit(&bytes)
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func eachFailureHasItsCode() throws {
        try withTemporaryDirectory { folder in
            let cases: [(String, MIMECacheReader.Failure.Code, String?)] = [
                (folder + "/missing.cache", .notFound, "stat"),
                (folder, .notRegularFile, nil),
                (try Self.cache(in: folder, "short.cache") { $0 = Array($0.prefix(20)) }, .malformed, nil),
                (try Self.cache(in: folder, "version.cache") { $0[3] = 9 }, .unsupportedVersion, nil),
                (
                    try Self.cache(in: folder, "past-end.cache") { $0[4...7] = [0x7f, 0xff, 0xff, 0xf0] }, .malformed,
                    nil
                ),
            ]
            for (path, code, call) in cases {
                guard let error = Self.failure(path) else {
                    Issue.record("\(path) was read")
                    continue
                }
                #expect(error.code == code, "\(error)")
                #expect(error.systemError?.call == call, "\(error)")
                #expect(error.path == path)
            }
            // The messages are those of before.
            #expect(
                Self.failure(folder + "/missing.cache")?.description == folder
                    + "/missing.cache: No such file or directory")
            #expect(
                Self.failure(folder + "/version.cache")?.description
                    == folder + "/version.cache@offset 0: unsupported mime.cache version 1.9 (1.1 and 1.2 are read)")
        }
    }

    /// The fixture cache itself is read: the cases above fail for their
    /// damage, not for the fixture.
    @Test func theUndamagedCacheIsRead() throws {
        #expect(Self.failure(Fixtures.path("compiled/mime/mime.cache")) == nil)
    }
}
