import FuzzDriver
import FuzzExercises
import SharedMIMEInfo

// mime.cache files, then names and content matched against what they hold.
fuzz { input in
    var layer = MIMELayer(directory: "/fuzz/mime", format: .cache)
    guard (try? MIMECacheReader.parse(bytes: Array(input), path: "/fuzz/mime/mime.cache", into: &layer)) != nil else {
        return
    }
    exercise(MIMEDatabase(layers: [layer], diagnostics: []), content: input)
}
