import FuzzDriver
import FuzzExercises

@testable import DocumentHandlers

// Key files: desktop entries (with their Exec field codes expanded),
// mimeapps.list values, and `uti set-default`'s edit of a mimeapps.list.
fuzz { input in
    let bytes = Array(input)
    let file = KeyFile(bytes: bytes, path: "/fuzz/applications/fuzz.desktop")
    let entry = DesktopEntry(file, id: "fuzz.desktop", language: "de_DE")
    if let exec = entry.exec {
        let details = ExecCommand.EntryDetails(icon: entry.icon, name: entry.name, location: entry.path)
        _ = exec.commands(for: [], entry: details)
        _ = exec.commands(for: ["/tmp/a b.txt", "/tmp/%f'\"$x.png"], entry: details)
    }
    for group in file.groups {
        for item in group.entries {
            _ = try? KeyFileValue.strings(item.rawValue)
            _ = KeyFileValue.boolean(item.rawValue)
        }
    }
    checkDefaultsEdit(of: file, bytes: bytes)
}

/// What `uti set-default` writes into a file it accepted must read back as
/// the same file with only the chosen defaults changed; a failure is a
/// crash for libFuzzer.
func checkDefaultsEdit(of file: KeyFile, bytes: [UInt8]) {
    guard !file.diagnostics.contains(where: { $0.severity == .error }) else { return }
    let text = String(decoding: bytes, as: UTF8.self)
    let types = ["text/plain", "Image/PNG"]
    let chosen = Set(types.map { $0.lowercased() })
    typealias Item = (key: String, locale: String?, value: String)
    /// The entries of every group called `name`, merged as readers merge
    /// them; in `[Default Applications]`, only those for other types.
    func items(_ file: KeyFile, _ name: String) -> [Item] {
        file.groups.filter { $0.name == name }.flatMap(\.entries)
            .filter { name != UserDefaultsWriter.group || !chosen.contains($0.key.lowercased()) }
            .map { (key: $0.key, locale: $0.locale, value: $0.rawValue) }
    }
    func same(_ a: [Item], _ b: [Item]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy { $0.key == $1.key && $0.locale == $1.locale && $0.value == $1.value }
    }
    for handler in ["fuzz.desktop", nil] as [String?] {
        let edited = UserDefaultsWriter.edited(
            text, group: UserDefaultsWriter.group, entries: types.map { ($0, handler) })
        let reread = KeyFile(bytes: Array(edited.utf8), path: file.path)
        let errors = reread.diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            fatalError("set-default made an unreadable file: \(errors) in \(edited.debugDescription)")
        }
        for name in Set(file.groups.map(\.name)).union(reread.groups.map(\.name))
        where !same(items(file, name), items(reread, name)) {
            fatalError("set-default changed [\(name)]: \(text.debugDescription) became \(edited.debugDescription)")
        }
        let written = reread.groups.filter { $0.name == UserDefaultsWriter.group }.flatMap(\.entries)
            .filter { chosen.contains($0.key.lowercased()) }.map { "\($0.key)=\($0.rawValue)" }
        let expected = handler.map { id in types.map { "\($0)=\(id);" } } ?? []
        guard written == expected else {
            fatalError(
                "set-default wrote \(written), not \(expected): \(text.debugDescription) became \(edited.debugDescription)"
            )
        }
    }
}
