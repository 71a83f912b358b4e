import Foundation
import SystemBase
import Testing

/// The variables `uti` reads are named once, in `EnvironmentVariable`, and
/// the Environment table of docs/reference.md (which the manual page's
/// ENVIRONMENT is made from) says what each does.
@Suite struct EnvironmentVariableTests {
    @Test func readmeListsEveryVariable() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/reference.md").standardized
        let text = try String(contentsOf: readme, encoding: .utf8)
        #expect(
            text.contains(EnvironmentVariable.readmeTable + "\n"),
            """
            The Environment table of docs/reference.md differs from EnvironmentVariable.all; replace it with:
            \(EnvironmentVariable.readmeTable)
            """)
        #expect(Set(EnvironmentVariable.all.map(\.name)).count == EnvironmentVariable.all.count)
    }

    @Test func theLocaleIsPOSIXs() {
        #expect(EnvironmentVariable.locale(in: ["LANG": "de_DE.UTF-8"]) == "de_DE.UTF-8")
        #expect(EnvironmentVariable.locale(in: ["LC_MESSAGES": "fr_FR", "LANG": "de_DE"]) == "fr_FR")
        #expect(EnvironmentVariable.locale(in: ["LC_ALL": "", "LC_MESSAGES": "fr_FR"]) == "fr_FR")
        // LC_ALL=C wins over LANG: messages are not translated.
        #expect(EnvironmentVariable.locale(in: ["LC_ALL": "C", "LANG": "de_DE"]) == nil)
        #expect(EnvironmentVariable.locale(in: ["LANG": "C.UTF-8"]) == nil)
        #expect(EnvironmentVariable.locale(in: [:]) == nil)
    }

    @Test func aSystemErrorNamesTheCallAndPath() {
        #expect(SystemError(ENOENT, call: "open", path: "/x").description == "/x: open: No such file or directory")
        #expect(SystemError(EACCES).description == "Permission denied")
        errno = ENOTDIR
        #expect(SystemError.current("stat", path: "/a/b") == SystemError(ENOTDIR, call: "stat", path: "/a/b"))
    }
}
