import FuzzDriver
import FuzzExercises
import PropertyLists
import UniformTypes

// XML property lists, and the registry built from the type declarations
// of whatever parses.
fuzz { input in
    let bytes = Array(input)
    guard !bytes.starts(with: Array("bplist".utf8)) else { return }
    if let plist = try? PropertyList.parse(bytes, limits: fuzzLimits) {
        // Whatever declarations it holds (cycles, unknown parents and
        // clashes included) are merged into a registry and looked up.
        var builder = RegistryBuilder()
        builder.add(DeclarationReader(plist, file: "fuzz.plist", source: .user))
        exercise(builder.build())
    }
}
