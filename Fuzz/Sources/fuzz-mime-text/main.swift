import FuzzDriver
import FuzzExercises
@testable import SharedMIMEInfo
import UniformTypes

// The line-based MIME files: mime.types, and the types and treemagic files
// update-mime-database writes beside mime.cache.
fuzz { input in
    let bytes = Array(input)
    _ = MIMETypesFile.parse(bytes, path: "/fuzz/mime.types")
    _ = MIMETextFiles.types(bytes)
    var diagnostics: [MIMEDiagnostic] = []
    _ = MIMETextFiles.treeMagic(bytes, path: "/fuzz/mime/treemagic", diagnostics: &diagnostics)
}
