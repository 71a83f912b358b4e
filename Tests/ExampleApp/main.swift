// A program written as a Mac program would be: it exports one type in its
// Info.plist and looks it up. The tests run copies of it with an Info.plist
// in each place `ProcessTypeDeclarations` documents.
import Foundation
import UniformTypeIdentifiers

extension UTType {
    static let exampleNotes = UTType(exportedAs: "com.example.notes")
}

// Warnings about the program's declarations go to standard error, as a
// Mac program's console messages would, unless --quiet is given.
if !CommandLine.arguments.contains("--quiet") {
    ProcessTypeDeclarations.setWarningHandler(ProcessTypeDeclarations.standardErrorWarnings)
}
if CommandLine.arguments.contains("--activate") {
    do {
        try ProcessTypeDeclarations.activate()
    } catch {
        print("problems: \(error)")
        exit(3)
    }
}
let notes = UTType.exampleNotes
print("identifier: \(notes.identifier)")
print("declared: \(notes.isDeclared)")
print("extension: \(notes.preferredFilenameExtension ?? "none")")
print("mime: \(notes.preferredMIMEType ?? "none")")
print("description: \(notes.localizedDescription ?? "none")")
print("conforms to text: \(notes.conforms(to: .plainText))")
print("by extension: \(UTType(filenameExtension: "exnotes")?.identifier ?? "none")")
print("warnings: \(ProcessTypeDeclarations.warnings.count)")
print("info plist: \(ProcessTypeDeclarations.infoPlistURL?.path ?? "none")")
