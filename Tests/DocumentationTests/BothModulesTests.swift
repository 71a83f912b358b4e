import Foundation
import Testing
import UniformTypeIdentifiers
import UniformTypes

/// A program may import both modules (Apple's API for its model code,
/// `UniformTypes` for `FileTyping`) and write every name unqualified:
/// `UTType` is Apple's, `UniformType` the registry's, and both answer from
/// the one process registry alike.

@Suite struct BothModulesTests {
    static let registry = TypeRegistry.default

    @Test func oneRegistryServesBoth() {
        #expect(ProcessTypeDeclarations.registry === Self.registry)
    }

    @Test func everyExtensionAndMIMETypeGetsTheSameAnswerThroughBoth() {
        var extensions = Set<String>(), mimeTypes = Set<String>()
        for type in Self.registry.allTypes {
            extensions.formUnion(type.tags(.filenameExtension))
            mimeTypes.formUnion(type.tags(.mimeType))
        }
        #expect(extensions.count > 500 && mimeTypes.count > 500)
        for ext in extensions {
            let apple = UTType(filenameExtension: ext), ours = UniformType(filenameExtension: ext)
            #expect(apple?.identifier == ours?.identifier, "\(ext)")
            #expect(apple?.preferredMIMEType == ours?.preferredMIMEType, "\(ext)")
            #expect(apple?.preferredFilenameExtension == ours?.preferredFilenameExtension, "\(ext)")
        }
        for mime in mimeTypes {
            let apple = UTType(mimeType: mime), ours = UniformType(mimeType: mime)
            #expect(apple?.identifier == ours?.identifier, "\(mime)")
            #expect(apple?.preferredMIMEType == ours?.preferredMIMEType, "\(mime)")
        }
    }

    /// Where Apple's own data gives a type no MIME type, both give the
    /// system's (a Mac answers nil); Apple's `tags` stays what Apple declares.
    @Test func aMIMETypeOnlyTheSystemGivesIsPreferredInBoth() throws {
        let ts = try #require(UTType(filenameExtension: "ts"))
        #expect(ts.identifier == "public.mpeg-2-transport-stream")
        #expect(ts.preferredMIMEType == "video/mp2t")
        #expect(UniformType(filenameExtension: "ts")?.preferredMIMEType == "video/mp2t")
        #expect(ts.tags[.mimeType] == nil)
    }

    @Test func aTypeFileTypingGaveIsUsableThroughApplesAPI() throws {
        let folder = NSTemporaryDirectory() + "uti-both-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 24)
        FileManager.default.createFile(atPath: folder + "/picture", contents: Data(png))
        let typed = try FileTyping(registry: Self.registry).type(forPath: folder + "/picture")
        let apple = UTType(typed.type)
        #expect(apple.conforms(to: .image) && apple == .png)
        #expect(apple.base == typed.type)
    }
}
