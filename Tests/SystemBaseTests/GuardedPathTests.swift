import Foundation
import SystemBase
import Testing

/// Paths opened one component at a time, following only the links of the
/// running user and of root.
@Suite struct GuardedPathTests {
    /// A temporary folder (its canonical path, so that the paths messages
    /// name are predictable), removed with everything in it.
    final class Tree {
        let root: String

        init() {
            var template = Array((NSTemporaryDirectory() + "uti-guarded-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            precondition(made != nil, "mkdtemp failed")
            let resolved = realpath(made!, nil)!
            root = String(cString: resolved)
            free(resolved)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func path(_ relative: String) -> String { root + "/" + relative }

        func folder(_ relative: String) {
            try! FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
        }

        func link(_ relative: String, to target: String, owner: uid_t? = nil) {
            #expect(symlink(target, path(relative)) == 0)
            if let owner { #expect(lchown(path(relative), owner, owner) == 0) }
        }
    }

    /// The device and inode of an open descriptor, which it closes.
    static func identity(closing fd: Int32) -> [UInt64] {
        defer { close(fd) }
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    static func identity(_ path: String) -> [UInt64] {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// The error a failed open threw; nil when it succeeded (its descriptor is closed).
    static func failure(_ body: () throws(GuardedPath.Failure) -> Int32) -> GuardedPath.Failure? {
        do {
            close(try body())
            return nil
        } catch {
            return error
        }
    }

    @Test func linksOfTheRunningUserAreFollowed() throws {
        let tree = Tree()
        tree.folder("real/sub")
        tree.link("relative", to: "real")
        tree.link("absolute", to: tree.path("real/sub"))
        tree.link("real/chained", to: "../relative/sub")

        let sub = Self.identity(tree.path("real/sub"))
        #expect(Self.identity(closing: try GuardedPath.openFolder(tree.path("relative/sub"))) == sub)
        #expect(Self.identity(closing: try GuardedPath.openFolder(tree.path("absolute"))) == sub)
        #expect(Self.identity(closing: try GuardedPath.openFolder(tree.path("real/chained"))) == sub)
        #expect(Self.identity(closing: try GuardedPath.openFolder(tree.path("relative/./sub/"))) == sub)

        let (folder, name) = try GuardedPath.openParent(of: tree.path("relative/sub/file"))
        #expect(name == "file")
        #expect(Self.identity(closing: folder) == sub)
        #expect(try GuardedPath.linkTarget(AT_FDCWD, tree.path("relative")) != nil)
        #expect(try GuardedPath.linkTarget(AT_FDCWD, tree.path("real")) == nil)
        #expect(throws: GuardedPath.Failure.self) { try GuardedPath.linkTarget(AT_FDCWD, tree.path("missing")) }
        #expect(Self.identity(closing: try GuardedPath.openFolder(".")) == Self.identity("."))
        #expect(Self.identity(closing: try GuardedPath.openFolder("/")) == Self.identity("/"))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a link to another user"))
    func aLinkOfAnotherUserIsNeverFollowed() throws {
        let tree = Tree()
        tree.folder("real/sub")
        tree.link("foreign", to: "real", owner: 4242)
        tree.link("mine", to: "foreign")
        let refused = GuardedPath.Failure.foreignLink(link: tree.path("foreign"), owner: 4242)

        // In the middle of a path, as its last component, or reached through a link that may be followed.
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder(tree.path("foreign/sub")) }
                == refused)
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder(tree.path("foreign")) }
                == refused)
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder(tree.path("mine/sub")) }
                == refused)
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in
                try GuardedPath.openFolder(tree.path("foreign/new"), creating: 0o700)
            } == refused)
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in
                try GuardedPath.openParent(of: tree.path("foreign/file")).folder
            } == refused)
        #expect(!FileManager.default.fileExists(atPath: tree.path("real/new")))
        #expect(
            refused.description
                == "\(tree.path("foreign")) is a symbolic link owned by user 4242; links of other users are not followed"
        )

        // As the last name of openParent it is left to the caller, who can ask.
        let (folder, name) = try GuardedPath.openParent(of: tree.path("foreign"))
        defer { close(folder) }
        #expect(name == "foreign")
        #expect(throws: GuardedPath.Failure.foreignLink(link: "foreign", owner: 4242)) {
            try GuardedPath.linkTarget(folder, name)
        }
        #expect(try GuardedPath.linkTarget(folder, "mine") == "foreign")
        #expect(try GuardedPath.linkTarget(folder, "real") == nil)

        // A link of root is followed whoever runs.
        tree.link("roots", to: "real", owner: 0)
        #expect(
            Self.identity(closing: try GuardedPath.openFolder(tree.path("roots/sub")))
                == Self.identity(tree.path("real/sub")))
    }

    @Test func missingFoldersAreCreatedWhenAsked() throws {
        let tree = Tree()
        tree.folder("real")
        tree.link("link", to: "real")
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder(tree.path("link/a/b")) }
                == .system(SystemError(ENOENT, call: "openat", path: tree.path("real/a"))))

        let fd = try GuardedPath.openFolder(tree.path("link/a/b/c"), creating: 0o700)
        #expect(Self.identity(closing: fd) == Self.identity(tree.path("real/a/b/c")))
        for made in ["real/a", "real/a/b", "real/a/b/c"] {
            var info = stat()
            #expect(lstat(tree.path(made), &info) == 0 && info.isDirectory && info.permissions & 0o077 == 0)
        }
        // Existing folders are opened as they are.
        #expect(
            Self.identity(closing: try GuardedPath.openFolder(tree.path("real/a"), creating: 0o755))
                == Self.identity(tree.path("real/a")))

        // A file on the way is not a folder, and is left alone.
        FileManager.default.createFile(atPath: tree.path("real/file"), contents: Data("x".utf8))
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in
                try GuardedPath.openFolder(tree.path("link/file/d"), creating: 0o700)
            } == .system(SystemError(ENOTDIR, call: "openat", path: tree.path("real/file"))))
        let (folder, name) = try GuardedPath.openParent(of: tree.path("link/new/list"), creating: 0o755)
        #expect(name == "list")
        #expect(Self.identity(closing: folder) == Self.identity(tree.path("real/new")))
    }

    @Test func moreThanFortyLinksAreALoop() throws {
        let tree = Tree()
        tree.folder("end")
        // l0 -> l1 -> … -> l39 -> end: forty links.
        for index in 0..<40 { tree.link("l\(index)", to: index == 39 ? "end" : "l\(index + 1)") }
        #expect(Self.identity(closing: try GuardedPath.openFolder(tree.path("l0"))) == Self.identity(tree.path("end")))
        tree.link("m", to: "l0")
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder(tree.path("m")) }
                == .system(SystemError(ELOOP, call: "openat", path: tree.path("l39"))))
        tree.link("self", to: "self")
        guard
            case .system(let error)? = Self.failure({ () throws(GuardedPath.Failure) in
                try GuardedPath.openFolder(tree.path("self/x"), creating: 0o700)
            })
        else {
            Issue.record("a link to itself was opened")
            return
        }
        #expect(error.code == ELOOP)
    }

    /// `..` goes up from the folder a link led to, as the kernel's does.
    @Test func dotDotLeavesTheFolderReached() throws {
        let tree = Tree()
        tree.folder("x/y")
        tree.folder("a")
        tree.link("a/link", to: tree.path("x/y"))
        #expect(
            Self.identity(closing: try GuardedPath.openFolder(tree.path("a/link/.."))) == Self.identity(tree.path("x")))
        #expect(
            Self.identity(closing: try GuardedPath.openFolder(tree.path("x/y/../../a")))
                == Self.identity(tree.path("a")))
        #expect(Self.identity(closing: try GuardedPath.openFolder("/../..")) == Self.identity("/"))
        let (folder, name) = try GuardedPath.openParent(of: tree.path("a/link/../file"))
        #expect(name == "file")
        #expect(Self.identity(closing: folder) == Self.identity(tree.path("x")))

        for path in [tree.path("a/."), tree.path("a/.."), "/", "", "."] {
            #expect(
                Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openParent(of: path).folder }
                    == .system(SystemError(EINVAL, path: path)), "\(path)")
        }
        #expect(
            Self.failure { () throws(GuardedPath.Failure) in try GuardedPath.openFolder("") }
                == .system(SystemError(ENOENT, call: "openat", path: "")))
    }
}
