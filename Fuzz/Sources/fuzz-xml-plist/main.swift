import FuzzDriver
import FuzzExercises
import PropertyLists
import UniformTypes

// XML property lists, and type declarations read from whatever parses.
fuzz { input in
    let bytes = Array(input)
    guard !bytes.starts(with: Array("bplist".utf8)) else { return }
    if let plist = try? PropertyList.parse(bytes, limits: fuzzLimits) {
        _ = DeclarationReader(plist, file: "fuzz.plist", source: .user)
    }
}
