import Foundation
import Testing

@testable import UniformTypes

/// The code of each way `FileTyping` cannot type a path.
@Suite struct FileTypingErrorCodeTests {
    static func failure(_ body: () throws(FileTyping.Failure) -> Void) -> FileTyping.Failure? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func eachFailureHasItsCode() throws {
        try withTemporaryDirectory { url in
            let folder = url.path
            FileManager.default.createFile(atPath: folder + "/file.txt", contents: Data("text".utf8))
            let typing = FileTyping(registry: .bundled)
            let cases: [(String, () throws(FileTyping.Failure) -> Void, FileTyping.Failure.Code, String, String?)] = [
                (
                    "missing",
                    { () throws(FileTyping.Failure) in _ = try typing.type(ofExistingPath: folder + "/missing.txt") },
                    .notFound,
                    "\(folder)/missing.txt: No such file or directory", "lstat"
                ),
                (
                    "under a file",
                    { () throws(FileTyping.Failure) in _ = try typing.type(ofExistingPath: folder + "/file.txt/x") },
                    .notFound,
                    "\(folder)/file.txt/x: Not a directory", "lstat"
                ),
                (
                    "empty", { () throws(FileTyping.Failure) in _ = try typing.type(ofExistingPath: "") }, .emptyPath,
                    ": empty path", nil
                ),
                (
                    "content of a missing file",
                    { () throws(FileTyping.Failure) in _ = try typing.type(ofContentAt: folder + "/missing.txt") },
                    .notFound, "\(folder)/missing.txt: cannot read: No such file or directory", "open"
                ),
                (
                    "content of a folder",
                    { () throws(FileTyping.Failure) in _ = try typing.type(ofContentAt: folder) }, .notRegularFile,
                    "\(folder): is no longer a regular file", nil
                ),
                (
                    "a closed descriptor",
                    { () throws(FileTyping.Failure) in _ = try FileTyping.readPrefix(of: -1, count: 8, label: "-") },
                    .systemCallFailed, "-: cannot read: Bad file descriptor", "read"
                ),
            ]
            for (what, body, code, description, call) in cases {
                let error = try #require(Self.failure(body), "\(what): typed")
                #expect(error.code == code, "\(what): \(error)")
                #expect(error.description == description, "\(what)")
                #expect(error.systemError?.call == call, "\(what)")
            }
            let typed = Self.failure { () throws(FileTyping.Failure) in
                _ = try typing.type(ofExistingPath: folder + "/file.txt")
            }
            #expect(typed == nil)
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root may read any file"))
    func aFileThatMayNotBeReadIsPermissionDenied() throws {
        try withTemporaryDirectory { url in
            let path = url.path + "/secret.bin"
            FileManager.default.createFile(atPath: path, contents: Data([0, 1, 2]), attributes: [.posixPermissions: 0])
            let typing = FileTyping(registry: .bundled)
            let failure = Self.failure { () throws(FileTyping.Failure) in _ = try typing.type(ofContentAt: path) }
            let error = try #require(failure)
            #expect(error.code == .permissionDenied && error.systemError?.kind == .permissionDenied)
        }
    }

    /// The initializers without a code, kept from 0.1.0, give `other`.
    @Test func theInitializersWithoutACodeGiveOther() {
        #expect(FileTyping.Failure(path: "a", reason: "b").code == .other)
        #expect(FileTyping.Failure(path: Array("a".utf8), reason: "b").code == .other)
    }
}
