import CompiledData
import Foundation
import TestSupport
import Testing

/// The code of each way a compiled image is refused, as `ImageView.read`
/// and `ImageView.init` report it.
@Suite struct ImageErrorCodeTests {
    static let kind = ImageKind(tag: 0x7E57, layoutVersion: 1)

    /// A small sound image: a root word and a string in the pool.
    static func sound() -> [UInt8] {
        var writer = ImageWriter()
        let root = writer.append(7)
        writer.appendString("hello")
        return writer.image(kind: kind, root: root)
    }

    static func failure(_ body: () throws(ImageError) -> Void) -> ImageError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func damagedImagesHaveTheirCode() throws {
        let sound = Self.sound()
        let accepted = Self.failure { () throws(ImageError) in _ = try ImageView(sound, kind: Self.kind) }
        #expect(accepted == nil)
        var notImage = sound
        notImage[0] = UInt8(ascii: "X")
        var format = sound
        format[ImageHeader.formatVersion] &+= 1
        var flipped = sound
        flipped[flipped.count - 1] ^= 0xFF
        var sizes = sound
        sizes[ImageHeader.poolCount] &+= 1
        let cases: [([UInt8], ImageKind, ImageError.Code, String)] = [
            (notImage, Self.kind, .notAnImage, "not a compiled image"),
            (format, Self.kind, .unsupportedVersion, "image format"),
            (sound, ImageKind(tag: 0x7E57, layoutVersion: 2), .wrongKind, "expected kind 7e57 layout 2"),
            (flipped, Self.kind, .damaged, "checksum mismatch (damaged)"),
            (sizes, Self.kind, .damaged, "sizes in the header do not match"),
        ]
        for (bytes, kind, code, text) in cases {
            let failure = Self.failure { () throws(ImageError) in _ = try ImageView(bytes, kind: kind) }
            let error = try #require(failure, "\(text): accepted")
            #expect(error.code == code && error.reason.contains(text), "\(error)")
        }
    }

    @Test func filesThatCannotBeReadHaveTheirCode() throws {
        let folder = TemporaryFolder("uti-image-codes")
        let sound = Self.sound()
        try Data(sound).write(to: URL(fileURLWithPath: folder.path("image")))
        try Data(sound.prefix(10)).write(to: URL(fileURLWithPath: folder.path("short")))
        try folder.makeFolder("folder")
        symlink(folder.path("image"), folder.path("link"))
        #expect(try ImageView.read(path: folder.path("missing"), kind: Self.kind) == nil)
        #expect(try ImageView.read(path: folder.path("image"), kind: Self.kind)?.root == 0)
        let cases: [(String, Int, (stat) -> String?, ImageError.Code, String)] = [
            ("folder", 1 << 20, { _ in nil }, .notRegularFile, "not a regular file"),
            ("link", 1 << 20, { _ in nil }, .notRegularFile, "cannot open: Too many levels of symbolic links"),
            ("short", 1 << 20, { _ in nil }, .damaged, "size 10 is out of range"),
            ("image", 40, { _ in nil }, .tooLarge, "size \(sound.count) is out of range"),
            ("image", 1 << 20, { _ in "owned by another user" }, .refused, "owned by another user"),
        ]
        for (name, limit, accept, code, reason) in cases {
            let failure = Self.failure { () throws(ImageError) in
                _ = try ImageView.read(path: folder.path(name), kind: Self.kind, limit: limit, accept: accept)
            }
            let error = try #require(failure, "\(name) was read")
            #expect(error.code == code && error.reason == reason, "\(name): \(error)")
        }
    }

    /// The initializer without a code, which other modules still use, gives `other`.
    @Test func theInitializerWithoutACodeGivesOther() {
        #expect(ImageError("x").code == .other)
    }
}
