import Foundation
import SystemBase
import Testing

/// The codes of real failures: what `FileContents.read` and the system
/// calls behind it say, as a caller switches on them.
@Suite struct ErrorCodeTests {
    /// A fresh folder holding a 10-byte file, a subfolder and a FIFO.
    final class Place {
        let root: String
        var file: String { root + "/file.txt" }
        var folder: String { root + "/folder" }
        var fifo: String { root + "/fifo" }
        var missing: String { root + "/missing.txt" }

        init() {
            var template = Array((NSTemporaryDirectory() + "/uti-codes-XXXXXX").utf8CString)
            root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
            FileManager.default.createFile(atPath: root + "/file.txt", contents: Data("0123456789".utf8))
            mkdir(root + "/folder", 0o755)
            mkfifo(root + "/fifo", 0o644)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Each way a read fails, its code, the phrase after the path, and the
    /// system call named when one failed.
    @Test(
        arguments: [
            ("missing.txt", FileContents.ReadError.Code.notFound, "No such file or directory", "stat"),
            ("file.txt/inside", .notFound, "Not a directory", "stat"),
            ("folder", .isDirectory, "is a directory", nil),
            ("fifo", .notRegularFile, "is not a regular file", nil),
            ("file.txt", .tooLarge, "is 10 bytes; the limit is 4", nil),
        ] as [(String, FileContents.ReadError.Code, String, String?)])
    func readFailuresHaveTheirCode(
        name: String, code: FileContents.ReadError.Code, reason: String, call: String?
    )
        throws
    {
        let place = Place()
        let path = place.root + "/" + name
        do {
            _ = try FileContents.read(path, limit: 4)
            Issue.record("\(name) was read")
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.description == "\(path): \(reason)")
            #expect(error.systemError?.call == call)
            if call != nil { #expect(error.systemError?.path == path) }
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root may read any file"))
    func aFileThatMayNotBeReadIsPermissionDenied() throws {
        let place = Place()
        chmod(place.file, 0)
        do {
            _ = try FileContents.read(place.file, limit: 100)
            Issue.record("a file of mode 0 was read")
        } catch {
            #expect(error.code == .permissionDenied)
            #expect(error.systemError?.call == "open" && error.systemError?.kind == .permissionDenied)
        }
    }

    /// The one mapping from errno to `SystemError.Code`.
    @Test(
        arguments: [
            (ENOENT, SystemError.Code.notFound), (EACCES, .permissionDenied), (EPERM, .permissionDenied),
            (EEXIST, .alreadyExists), (ENOTDIR, .notADirectory), (EISDIR, .isADirectory), (ENOTEMPTY, .notEmpty),
            (EXDEV, .crossDevice), (EBUSY, .busy), (ETXTBSY, .busy), (EAGAIN, .wouldBlock), (EINTR, .interrupted),
            (ENOSPC, .noSpace), (EDQUOT, .noSpace), (EROFS, .readOnlyFileSystem), (ELOOP, .symbolicLinkLoop),
            (ENAMETOOLONG, .nameTooLong), (EMFILE, .resourceExhausted), (ENFILE, .resourceExhausted),
            (ENOMEM, .resourceExhausted), (EINVAL, .invalidArgument), (EOPNOTSUPP, .unsupported),
            (ENOSYS, .unsupported),
            (EBADF, .badDescriptor), (EIO, .ioError), (ECHILD, .other), (EFBIG, .other),
        ] as [(Int32, SystemError.Code)])
    func errnoValuesHaveTheirKind(errno: Int32, kind: SystemError.Code) {
        #expect(SystemError(errno).kind == kind)
        #expect(SystemError(errno, call: "x", path: "/p").code == errno)
    }

    /// Errors of real calls carry their call, their path and the kind of their errno.
    @Test func realCallsGiveTheirKind() throws {
        let place = Place()
        #expect(throws: SystemError(ENOENT, call: "stat", path: place.missing)) {
            try stat(path: place.missing)
        }
        do {
            _ = try FolderDescriptor.open(place.file)
            Issue.record("a file was opened as a folder")
        } catch {
            #expect(error.kind == .notADirectory)
        }
        #expect(throws: SystemError(EBADF, call: "fstat", path: nil)) { try stat(descriptor: -1) }
    }
}
