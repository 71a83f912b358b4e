import FuzzDriver
import FuzzExercises
import UniformTypes

@testable import SharedMIMEInfo

// The line-based MIME files: mime.types (then merged into a registry and
// looked up), and the types and treemagic files update-mime-database writes
// beside mime.cache.
fuzz { input in
    let bytes = Array(input)
    // The records join a registry as the system's would, and are looked up.
    let (records, _) = MIMETypesFile.parse(bytes, path: "/fuzz/mime.types")
    var builder = RegistryBuilder()
    builder.add(records)
    exercise(builder.build())
    _ = MIMETextFiles.types(bytes)
    var diagnostics: [Diagnostic] = []
    _ = MIMETextFiles.treeMagic(bytes, path: "/fuzz/mime/treemagic", diagnostics: &diagnostics)
}
