import Foundation
import Testing

/// docs/uti.1 (tools/generate-manual.sh) describes the tool as it is: every
/// command and every option the parser knows has its entry.
@Suite struct ManualPageTests {
    @Test func everyCommandAndOptionIsInTheManualPage() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/uti.1").standardized
        let manual = try String(contentsOf: page, encoding: .utf8)
        // ".It Fl L , -follow Ar path..." spells options as "-follow".
        let optionSpellings = Set(manual.split(separator: "\n").filter { $0.hasPrefix(".It Fl") }
            .flatMap { $0.split(separator: " ") }.map(String.init))
        let dump = try Run("--experimental-dump-help")
        let root = try #require(try dump.json() as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let subcommands = try #require(command["subcommands"] as? [[String: Any]])
        #expect(subcommands.count >= 15)
        for subcommand in subcommands {
            let name = try #require(subcommand["commandName"] as? String)
            if name == "help" { continue }
            #expect(manual.contains(".It Em \(name)\n"), "uti \(name): run tools/generate-manual.sh")
            for argument in subcommand["arguments"] as? [[String: Any]] ?? [] {
                for spelling in argument["names"] as? [[String: Any]] ?? [] where spelling["kind"] as? String == "long" {
                    let option = try #require(spelling["name"] as? String)
                    if option == "help" || option == "version" { continue }
                    #expect(optionSpellings.contains("-\(option)"), "uti \(name) --\(option): run tools/generate-manual.sh")
                }
            }
        }
    }
}
