import FuzzDriver
import FuzzExercises
import SharedMIMEInfo

// shared-mime-info package XML, then names and content matched against the
// globs and magic it declared.
fuzz { input in
    var layer = MIMELayer(directory: "/fuzz/mime", format: .packages)
    var diagnostics: [Diagnostic] = []
    MIMEPackageReader.read(
        bytes: Array(input), path: "/fuzz/mime/packages/fuzz.xml", into: &layer, diagnostics: &diagnostics)
    exercise(MIMEDatabase(layers: [layer], diagnostics: diagnostics), content: input)
}
