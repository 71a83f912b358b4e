import DocumentHandlers
import FuzzDriver
import FuzzExercises

// Key files: desktop entries (with their Exec field codes expanded) and
// mimeapps.list values.
fuzz { input in
    let file = KeyFile(bytes: Array(input), path: "/fuzz/applications/fuzz.desktop")
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
}
