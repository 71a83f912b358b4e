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
