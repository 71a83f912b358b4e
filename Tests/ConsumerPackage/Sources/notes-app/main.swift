// Model code as it is written for the Mac: Apple's framework there, uti's
// module of the same name on Linux. Under `swift run` the program's types
// come from a resource the package carries (on a Mac app they would be in
// the bundle's Info.plist), registered in one line before the first lookup.
import Foundation
import UniformTypeIdentifiers

#if os(Linux)
    // uti's own module beside Apple's API: `UTType` stays Apple's type and
    // `UniformType` is the registry's, both written without a module name.
    import UniformTypes
#endif

extension UTType {
    static let notes = UTType(exportedAs: "com.example.notes")
}

#if os(Linux)
    if let types = Bundle.module.url(forResource: "Types", withExtension: "plist") {
        try ProcessTypeDeclarations.add(contentsOf: types)
    }
#endif

let jpeg = UTType(filenameExtension: "jpg")
print("jpg: \(jpeg?.identifier ?? "none") \(jpeg?.preferredMIMEType ?? "none")")
print("jpg is an image: \(jpeg?.conforms(to: .image) ?? false)")
print("notes: \(UTType.notes.identifier) .\(UTType.notes.preferredFilenameExtension ?? "none")")
print("notes is text: \(UTType.notes.conforms(to: .plainText))")
print("exnotes: \(UTType(filenameExtension: "exnotes")?.identifier ?? "none")")

#if os(Linux)
    let registryJPEG = UniformType(filenameExtension: "jpg")
    precondition(registryJPEG?.identifier == jpeg?.identifier, "both modules answer jpg alike")
    precondition(UTType(registryJPEG!) == jpeg, "a UniformType converts to Apple's UTType")
#endif
