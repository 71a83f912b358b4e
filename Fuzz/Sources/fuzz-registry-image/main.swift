import CompiledData
import FuzzDriver
import FuzzExercises
import SharedMIMEInfo

@testable import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

// Compiled registry images as the cache stores them. The checksum is set to
// match each input first, so that damage reaches the readers behind it.
//
// `fuzz-registry-image --write-seeds OUTDIR ROOT` writes small images
// compiled from the project's test fixtures (under ROOT) as seeds.

func writeSeeds(to folder: String, root: String) {
    let fixtures = root + "/Tests/UniformTypesTests/Fixtures"
    let mimeFolders = ["compiled", "user", "broken"].map { root + "/Tests/SharedMIMEInfoTests/Fixtures/\($0)/mime" }
    var builders: [RegistryBuilder] = [RegistryBuilder()]
    for plist in ["cookbook-Info.plist", "cycle.plist", "bad-declarations.plist", "overrides.plist"] {
        var builder = RegistryBuilder()
        builder.add(DeclarationReader.read(path: fixtures + "/" + plist, source: .user))
        builders.append(builder)
    }
    for folder in mimeFolders {
        var diagnostics: [Diagnostic] = []
        guard let layer = MIMELayerLoader.load(directory: folder, diagnostics: &diagnostics) else { continue }
        var builder = RegistryBuilder()
        builder.add(DeclarationReader.read(path: fixtures + "/cookbook-Info.plist", source: .user))
        builder.add(MIMEDatabase(layers: [layer], diagnostics: diagnostics))
        builders.append(builder)
    }
    for (index, builder) in builders.enumerated() {
        let image = builder.compile(extra: Array("seed \(index)".utf8))
        let path = "\(folder)/image-\(index)"
        guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
        _ = image.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    print("\(builders.count) seeds in \(folder)")
}

let arguments = CommandLine.arguments
if arguments.count == 4 && arguments[1] == "--write-seeds" {
    writeSeeds(to: arguments[2], root: arguments[3])
    exit(0)
}

fuzz { input in
    var bytes = Array(input)
    guard let view = try? ImageView(withMatchingChecksum(&bytes), kind: RegistryImage.kind) else { return }
    // The end of the image, where the pool holds the rules' values, stands for a file's content.
    let content = Array(bytes.suffix(4096))
    content.withUnsafeBytes { exercise(TypeRegistry(image: view), imageBytes: view.byteCount, content: $0) }
}
