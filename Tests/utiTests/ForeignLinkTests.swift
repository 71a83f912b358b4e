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

    /// A tree with a desktop entry for text/plain, a user's configuration
    /// folder, and `target`, a folder only root can use.
    static func listTree(_ prefix: String) throws -> TemporaryFolder {
        let folder = TemporaryFolder(prefix)
        try folder.write(
            "share/applications/viewer.desktop",
            "[Desktop Entry]\nType=Application\nName=Viewer\nExec=true %f\nMimeType=text/plain;\n")
        try folder.makeFolder("home/.config")
        try folder.makeFolder("target")
        #expect(chmod(folder.path("target"), 0o700) == 0)
        return folder
    }

    /// `set-default --no-system txt viewer.desktop` with `config` as XDG_CONFIG_HOME.
    static func setDefault(_ folder: TemporaryFolder, config: String) throws -> ProgramRun {
        try run(
            ["set-default", "--no-system", "txt", "viewer.desktop"],
            [
                "HOME": folder.path("home"), "XDG_CONFIG_HOME": config, "XDG_DATA_DIRS": folder.path("share"),
                "XDG_DATA_HOME": folder.path("home/.local/share"), "UTI_APPS": "",
            ])
    }

    /// `mimeapps.list` is a link of another user to a private file of root,
    /// or the configuration folder is a link of hers to root's folder.
    @Test(.enabled(if: geteuid() == 0, "needs root to give a link to another user"))
    func aListLinkOfAnotherUserIsNeitherFollowedNorLocked() throws {
        let folder = try Self.listTree("uti-foreign-list")
        let target = folder.path("target/mimeapps.list")
        try folder.write("target/mimeapps.list", "[Default Applications]\ntext/plain=root.desktop;\n")
        #expect(chmod(target, 0o600) == 0)
        let before = Self.contents(target)
        let link = folder.path("home/.config/mimeapps.list")
        Self.plant(link, to: target, owner: Self.stranger)
        let linkedFolder = folder.path("home/linked-config")
        Self.plant(linkedFolder, to: folder.path("target"), owner: Self.stranger)

        for (config, named) in [(folder.path("home/.config"), link), (linkedFolder, linkedFolder)] {
            let run = try Self.setDefault(folder, config: config)
            #expect(run.status == 2)
            #expect(
                run.stderr == "uti: \(named) is a symbolic link owned by user 4242; links of other users are not "
                    + "followed; nothing was written\n")
            #expect(run.stdout.isEmpty)
            let after = Self.contents(target)
            #expect(after?.bytes == before?.bytes && after?.mode == before?.mode)
            // No lock and no temporary file, beside the target or in the configuration folder.
            #expect(Self.names(folder.path("target")) == ["mimeapps.list"])
            #expect(Self.names(folder.path("home/.config")) == ["mimeapps.list"])
            var info = stat()
            #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK && info.st_uid == Self.stranger)
        }
    }

    /// A dotfiles manager's link, the user's own (root's own, for root), is
    /// written through and stays a link, with the folders on the way linked too.
    @Test func aListLinkOfTheRunningUserIsWrittenThrough() throws {
        let folder = try Self.listTree("uti-own-list")
        try folder.write("dots/mimeapps.list", "[Default Applications]\ntext/html=other.desktop;\n")
        #expect(symlink("dots", folder.path("dots-link")) == 0)
        let link = folder.path("home/.config/mimeapps.list")
        #expect(symlink("../../dots-link/mimeapps.list", link) == 0)

        let run = try Self.setDefault(folder, config: folder.path("home/.config"))
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(
            try String(contentsOfFile: folder.path("dots/mimeapps.list"), encoding: .utf8)
                == "[Default Applications]\ntext/html=other.desktop;\ntext/plain=viewer.desktop;\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../../dots-link/mimeapps.list")
        // The lock is beside the file written, as before.
        #expect(Self.names(folder.path("dots")) == [".mimeapps.list.uti-lock", "mimeapps.list"])
        #expect(Self.names(folder.path("home/.config")) == ["mimeapps.list"])
    }
}
