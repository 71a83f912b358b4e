import Foundation
import TestSupport
import Testing

/// Root running with another user's folders (`sudo -E`) never follows a
/// symbolic link that user owns: a link planted in the cache or
/// configuration folder cannot make the built `uti` write, rename or
/// delete in a folder of the link's choosing. Links of the running user
/// (and of root) are followed as before.
@Suite struct ForeignLinkTests {
    /// The owner given to planted links: any user but root and the running one.
    static let stranger: uid_t = 4242

    /// The names in `folder`, sorted.
    static func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The bytes and permission bits of `path` (not following a link).
    static func contents(_ path: String) -> (bytes: [UInt8], mode: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0, let data = FileManager.default.contents(atPath: path) else { return nil }
        return ([UInt8](data), info.st_mode & 0o7777)
    }

    /// Makes `link` a symbolic link to `target` owned by `owner`.
    static func plant(_ link: String, to target: String, owner: uid_t) {
        #expect(symlink(target, link) == 0)
        #expect(lchown(link, owner, owner) == 0)
    }

    /// Runs the built `uti` in the tests' environment with `changes`
    /// (a nil value unsets the variable).
    static func run(_ arguments: [String], _ changes: [String: String?]) throws -> ProgramRun {
        var environment = Run.environment()
        for (name, value) in changes { environment[name] = value }
        return try ProgramRun(Run.binary, arguments, environment: environment)
    }

    /// `CACHE/uti` is a link of another user to a folder only root can use,
    /// holding a registry old enough for any cleaning to remove.
    @Test(.enabled(if: geteuid() == 0, "needs root to give a link to another user"))
    func aCacheFolderLinkOfAnotherUserIsNeitherReadNorWritten() throws {
        let folder = TemporaryFolder("uti-foreign-cache")
        try folder.makeFolder("home/.cache")
        try folder.makeFolder("target")
        #expect(chmod(folder.path("target"), 0o700) == 0)
        let old = ["registry-old.img", "registry-old.img.AbCdEf"]
        for name in old {
            try folder.write("target/" + name, "not a registry\n")
            #expect(chmod(folder.path("target/" + name), 0o600) == 0)
            let longAgo = time(nil) - 60 * 24 * 3600
            var times = [timespec(tv_sec: longAgo, tv_nsec: 0), timespec(tv_sec: longAgo, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, folder.path("target/" + name), &times, 0) == 0)
        }
        let link = folder.path("home/.cache/uti")
        Self.plant(link, to: folder.path("target"), owner: Self.stranger)
        let before = old.map { Self.contents(folder.path("target/" + $0)) }
        let environment: [String: String?] = [
            "HOME": folder.path("home"), "XDG_CACHE_HOME": folder.path("home/.cache"), "UTI_CACHE_DIR": nil,
        ]

        for _ in 0..<2 {
            let run = try Self.run(["--no-system", "jpg"], environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("public.jpeg "))
            #expect(
                run.stderr.contains(
                    "(\(link) is a symbolic link owned by user 4242; links of other users are not followed)"),
                "\(run.stderr)")
            #expect(Self.names(folder.path("target")) == old)
            #expect(
                old.map { Self.contents(folder.path("target/" + $0)) }.elementsEqual(before) {
                    $0?.bytes == $1?.bytes && $0?.mode == $1?.mode
                })
        }
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK && info.st_uid == Self.stranger)

        // The same link owned by the running user is followed: the registry is kept there, and the old files go.
        #expect(lchown(link, geteuid(), getegid()) == 0)
        let run = try Self.run(["--no-system", "jpg"], environment)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let kept = Self.names(folder.path("target"))
        #expect(
            kept.count == 1 && kept[0].hasPrefix("registry-") && kept[0].hasSuffix(".img") && !old.contains(kept[0]))
    }
}
