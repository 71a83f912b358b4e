import FuzzDriver
import FuzzExercises
import PropertyLists
import UniformTypes

// Binary property lists (every input is read as one, whatever its first
// bytes), and the registry built from the type declarations of whatever
// parses.
fuzz { input in
    var bytes = Array("bplist00".utf8)
    bytes += input.starts(with: bytes) ? input.dropFirst(8) : input[...]
    if let plist = try? PropertyList.parse(bytes, limits: fuzzLimits) {
        var builder = RegistryBuilder()
        builder.add(DeclarationReader(plist, file: "fuzz.plist", source: .user))
        exercise(builder.build())
    }
}
