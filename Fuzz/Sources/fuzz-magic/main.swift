import FuzzDriver
import FuzzExercises
import SharedMIMEInfo

// Arbitrary content sniffed, and arbitrary names matched, against this
// machine's shared-mime-info database.
let database = MIMEDatabase.load()
fuzz { input in
    _ = database.guess(name: nil, data: input)
    _ = MIMEDatabase.looksLikeText(input)
    let name = String(decoding: input.prefix(255), as: UTF8.self)
    _ = database.guess(name: name, data: input)
}
