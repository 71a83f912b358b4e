import Foundation
import Testing

@testable import UniformTypes

/// `type(filenameExtension:)` and `type(mimeType:)` take a path of their
/// own for plain ASCII tags; every answer is the general lookup's.
@Suite struct LookupPathTests {
    @Test func theQuickPathAnswersAsTheGeneralOne() {
        let registry = TypeRegistry.bundled
        let data = registry.declaredType("public.data")!
        var extensions: [String] = [], mimeTypes: [String] = []
        for type in registry.allTypes {
            extensions += type.tags(.filenameExtension)
            mimeTypes += type.tags(.mimeType)
        }
        #expect(
            extensions.count > 500 && mimeTypes.count > 100,
            "\(extensions.count) extensions, \(mimeTypes.count) MIME types")
        let oddExtensions = [
            "", ".", ".JPG", "JPG", "Tar.GZ", ".tar.gz", "nope", " jpg", "jpg ", "j;pg", "ÉPS", "x\u{301}", "..jpg",
        ]
        for tag in extensions + extensions.map { $0.uppercased() } + oddExtensions {
            let quick = registry.type(filenameExtension: tag)
            let general = registry.type(tag: tag, tagClass: .filenameExtension, conformingTo: data)
            #expect(quick?.identifier == general?.identifier, "extension \"\(tag)\"")
        }
        let oddMIME = [
            "", "IMAGE/PNG", "image/png; charset=binary", " image/png", "text/plain;", "x/y\u{301}",
            "application/x-none",
        ]
        for tag in mimeTypes + mimeTypes.map { $0.uppercased() } + oddMIME {
            let quick = registry.type(mimeType: tag)
            let general = registry.type(tag: tag, tagClass: .mimeType, conformingTo: data)
            #expect(quick?.identifier == general?.identifier, "MIME type \"\(tag)\"")
        }
    }
}

/// A source named but unusable stops a load with a diagnostic per source:
/// its file, its line where known, and what is wrong.
@Suite struct LoadFailureTests {
    @Test func eachUnusableSourceIsADiagnosticWithItsFile() throws {
        try withTemporaryDirectory { folder in
            let broken = folder.appendingPathComponent("broken.plist").path
            try Data("<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n".utf8).write(
                to: URL(fileURLWithPath: broken))
            let missing = folder.appendingPathComponent("missing.plist").path
            let sources = RegistrySources(
                extraPaths: [missing, broken], includeSystem: false,
                environment: ["HOME": folder.path, "XDG_DATA_HOME": folder.path, "XDG_DATA_DIRS": folder.path])
            do throws(TypeRegistry.LoadError) {
                _ = try TypeRegistry.load(sources, cache: nil)
                Issue.record("loaded despite a missing and a broken file")
            } catch {
                #expect(error.diagnostics.map(\.file) == [missing, broken])
                #expect(error.diagnostics.allSatisfy { $0.severity == .error })
                #expect(error.diagnostics[0].message == "No such file or directory")
                #expect(error.diagnostics[1].position.line != nil)
                #expect(error.description.hasPrefix("\(missing): error: No such file or directory\n"))
            }
        }
    }
}
