import UniformTypes

#if canImport(Glibc)
    import Glibc
#endif

// Usage: uti-bench NAMES MIMETYPES
// NAMES: file names, one a line; MIMETYPES: MIME types, one a line.
// Prints "key value" lines: lookups a second for each kind of query, and
// the time to get the registry (bundled, system and user declarations)
// from the compiled cache, median of 200 loads, in microseconds: mapped, as
// the everyday command-line forms read it, and copied into memory, as the
// library does by default.

func fail(_ message: String) -> Never {
    let text = "uti-bench: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func lines(_ path: String) -> [String] {
    guard let f = fopen(path, "r") else { fail("cannot open \(path)") }
    defer { fclose(f) }
    var result: [String] = []
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, f) > 0 {
        let text = String(cString: line!)
        let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
        if !trimmed.isEmpty { result.append(trimmed) }
    }
    free(line)
    return result
}

/// Runs `body` over `items` until at least a second has passed; returns calls a second.
/// Items are borrowed from the array's buffer, not copied out of it, so that
/// the loop itself retains nothing (as GIO's C loop over a pointer array).
func rate<T>(_ name: String, _ items: [T], _ body: (borrowing T) -> Bool) -> Double {
    if let only, only != name { return 0 }
    var calls = 0, hits = 0
    let start = now()
    var elapsed = 0.0
    repeat {
        items.withUnsafeBufferPointer { buffer in
            for i in buffer.indices where body(buffer[i]) { hits += 1 }
        }
        calls += items.count
        elapsed = now() - start
    } while elapsed < 1.0
    if hits == -1 { print(hits) }
    return Double(calls) / elapsed
}

/// `UTI_BENCH_ONLY=KIND` (`extension`, `mime`, `conformance`, `name`) runs
/// one kind of query alone, as a profiler wants it; the others print 0.
let only = getenv("UTI_BENCH_ONLY").map { String(cString: $0) }

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: uti-bench NAMES MIMETYPES") }
let names = lines(arguments[1])
let mimeTypes = lines(arguments[2])
let extensions = names.compactMap { name -> String? in
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return String(name[name.index(after: dot)...])
}

/// Median time of 200 loads from the compiled cache, in seconds.
func readyTime(_ cache: RegistryCache, _ sources: RegistrySources) throws -> (Double, TypeRegistry) {
    var loads: [Double] = []
    var registry: TypeRegistry?
    for _ in 0..<200 {
        let start = now()
        let loaded = try TypeRegistry.load(sources, cache: cache)
        loads.append(now() - start)
        guard loaded.cacheOutcome == .reused else {
            fail("cache not reused: \(String(describing: loaded.cacheOutcome))")
        }
        registry = loaded.registry
    }
    loads.sort()
    return (loads[loads.count / 2], registry!)
}

guard var cache = RegistryCache.environment() else { fail("no cache folder") }
let sources = RegistrySources()
// This program's build ID differs from uti's, so the first load may rebuild
// the file; its checksum is recorded once the new file is a few seconds old.
if try TypeRegistry.load(sources, cache: cache).cacheOutcome != .reused { sleep(4) }
_ = try TypeRegistry.load(sources, cache: cache)
cache.reading = .map
let (mapped, reg) = try readyTime(cache, sources)
cache.reading = .copy
let (copied, _) = try readyTime(cache, sources)
print("registry_ready_us \(mapped * 1e6)")
print("registry_ready_copy_us \(copied * 1e6)")
print("registry_types \(reg.count)")

// Queries go to the process registry (`TypeRegistry.default`, what Apple's
// initializers ask), the same declarations from the same cache.
let registry = TypeRegistry.default
guard registry.count == reg.count else { fail("process registry has \(registry.count) types, cache \(reg.count)") }

print(
    "extension_lookups_per_s \(rate("extension", extensions) { registry.type(filenameExtension: $0)?.isDeclared ?? false })"
)
print("mime_lookups_per_s \(rate("mime", mimeTypes) { registry.type(mimeType: $0)?.isDeclared ?? false })")

let bases = [
    "public.image", "public.text", "public.data", "public.archive", "public.audiovisual-content", "public.content",
]
.compactMap { registry.declaredType($0) }
let types = extensions.compactMap { registry.type(filenameExtension: $0) }.filter(\.isDeclared)
var pairs: [(UniformType, UniformType)] = []
for (i, t) in types.enumerated() { pairs.append((t, bases[i % bases.count])) }
print("conformance_checks_per_s \(rate("conformance", pairs) { $0.0.conforms(to: $0.1) })")

let typing = FileTyping(registry: registry)
print("name_guesses_per_s \(rate("name", names) { typing.preferredType(forName: $0).isDeclared })")
