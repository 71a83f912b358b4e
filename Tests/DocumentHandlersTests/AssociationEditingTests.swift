import Foundation
import TestSupport
import Testing

@testable import DocumentHandlers

/// The library under `set-default --add/--remove`, `defaults` and `open-in
/// --choose`: list edits, the defaults listing, and the selector.
@Suite struct AssociationEditingTests {
    @Test func editsAreReportedAndAppliedInOrder() throws {
        let tree = HandlerTree()
        let file = tree.configHome + "/mimeapps.list"
        tree.write(
            "config/mimeapps.list",
            "[Default Applications]\ntext/plain=a.desktop;b.desktop;\n[X-UTI Default Editor]\ntext/plain=a.desktop;\n")
        let edits = try UserDefaultsWriter.apply(
            [
                .init(keys: ["text/plain"], handlerID: "a.desktop", action: .addAssociation),
                .init(keys: ["text/plain"], handlerID: "a.desktop", action: .removeAssociation),
            ], in: file)
        // Added then removed again in one write: the net change alone is written.
        #expect(
            edits == [
                .init(group: "Removed Associations", key: "text/plain", before: [], after: ["a.desktop"]),
                .init(
                    group: "Default Applications", key: "text/plain", before: ["a.desktop", "b.desktop"],
                    after: ["b.desktop"]),
                .init(group: "X-UTI Default Editor", key: "text/plain", before: ["a.desktop"], after: []),
            ])
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "[Default Applications]\ntext/plain=b.desktop;\n[X-UTI Default Editor]\n\n[Removed Associations]\ntext/plain=a.desktop;\n"
        )
        // Nothing to change: the file is not rewritten.
        let modified = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as! Date
        usleep(20_000)
        #expect(
            try UserDefaultsWriter.apply(
                [.init(keys: ["text/plain"], handlerID: "a.desktop", action: .removeAssociation)], in: file
            ).isEmpty)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as! Date == modified)
        // A value it cannot read stops the edit, with the line.
        tree.write("config/mimeapps.list", "[Added Associations]\ntext/plain=a\\q;\n")
        #expect {
            try UserDefaultsWriter.apply(
                [.init(keys: ["text/plain"], handlerID: "b.desktop", action: .addAssociation)], in: file)
        } throws: { error in
            "\(error)".hasPrefix("\(file):2: text/plain: unknown escape")
        }
    }

    /// Nothing is written that the file format (as uti and GLib read it)
    /// cannot hold, and a localized key (`text/plain[de]`) is another key.
    @Test func unreadableKeysAndIDsAreRefusedAndLocalizedKeysKept() throws {
        let tree = HandlerTree()
        let file = tree.configHome + "/mimeapps.list"
        tree.write("config/mimeapps.list", "[Added Associations]\ntext/plain[de]=vim.desktop;\n")
        try UserDefaultsWriter.apply(
            [.init(keys: ["text/plain"], handlerID: "w.desktop", action: .addAssociation)], in: file)
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "[Added Associations]\ntext/plain[de]=vim.desktop;\ntext/plain=w.desktop;\n")
        for change in [
            UserDefaultsWriter.Change(keys: ["text/plain"], handlerID: "inj\n[X]\nz.desktop"),
            .init(keys: ["a b/c"], handlerID: "w.desktop"), .init(keys: ["image/p*"], handlerID: "w.desktop"),
            .init(keys: ["text/plain"], handlerID: "esc\u{1b}.desktop", action: .addAssociation),
        ] {
            #expect(throws: UserDefaultsWriter.Failure.self) { try UserDefaultsWriter.apply([change], in: file) }
        }
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "[Added Associations]\ntext/plain[de]=vim.desktop;\ntext/plain=w.desktop;\n")
    }

    @Test func defaultSettingsNameTheLineInEffect() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/viewer.desktop", name: "Viewer", mime: ["image/png"])
        tree.write("config/mimeapps.list", "[Default Applications]\nimage/png=gone.desktop;viewer.desktop;\n")
        tree.write("etc-xdg/mimeapps.list", "[Default Applications]\nIMAGE/PNG=viewer.desktop;\n")
        let settings = try tree.resolver().defaultSettings()
        #expect(settings.count == 1)
        let png = try #require(settings.first)
        #expect(
            png.key == "image/png" && png.type?.identifier == "public.png"
                && png.current?.handler.id == "viewer.desktop")
        #expect(png.current?.claim.place == tree.configHome + "/mimeapps.list:2")
        #expect(png.passed.map(\.claim.handlerID) == ["gone.desktop", "viewer.desktop"])
        #expect(png.passed[1].reason == "\(tree.configHome)/mimeapps.list:2 comes first")
        #expect(png.opensWith?.handler.id == "viewer.desktop")
    }

    @Test func selectorLinesAndCommandLines() throws {
        let tree = HandlerTree()
        tree.desktop("share/applications/odd.desktop", name: "Odd\\tName", mime: ["image/png"])
        tree.desktop("share/applications/plain.desktop", name: "Plain", mime: ["image/png"])
        let resolver = try tree.resolver()
        let candidates = resolver.resolve(resolver.registry.type(identifier: "public.png")!).candidates
        #expect(HandlerSelector.lines(for: candidates) == ["odd.desktop  Odd?Name", "plain.desktop  Plain"])
        #expect(
            try HandlerSelector(commandLine: "rofi -dmenu -p \"Open with\"").arguments == [
                "rofi", "-dmenu", "-p", "Open with",
            ])
        #expect(throws: HandlerSelector.Problem.self) { try HandlerSelector(commandLine: "  ") }
        // The answer is read back to the candidate it names.
        let chosen = try HandlerSelector(arguments: ["sed", "-n", "2p"]).choose(among: candidates)
        guard case .chosen(let handler) = chosen else {
            Issue.record("nothing chosen")
            return
        }
        #expect(handler.id == "plain.desktop")
        guard
            case .cancelled(let status) = try HandlerSelector(arguments: ["sh", "-c", "exit 130"]).choose(
                among: candidates)
        else {
            Issue.record("a cancelled selector chose")
            return
        }
        #expect(status == 130)
        // A line two candidates share is refused, never guessed.
        #expect(throws: HandlerSelector.Problem.self) {
            try HandlerSelector(arguments: ["sed", "-n", "1p"]).choose(among: [candidates[1], candidates[1]])
        }
        // A selector that goes on printing is read up to its first line.
        guard
            case .chosen(let first) = try HandlerSelector(arguments: ["yes", "plain.desktop"]).choose(among: candidates)
        else {
            Issue.record("yes chose nothing")
            return
        }
        #expect(first.id == "plain.desktop")
        // The selector that stops reading at once never stops this process.
        let many = Array(repeating: candidates, count: 4000).flatMap { $0 }
        guard case .cancelled(let closed) = try HandlerSelector(arguments: ["true"]).choose(among: many) else {
            Issue.record("true chose")
            return
        }
        #expect(closed == 0)
        #expect(
            HandlerSelector.standard(environment: ["UTI_SELECTOR": "dmenu -i"], inputIsTerminal: false)
                .map(\.arguments) == .success(["dmenu", "-i"]))
        #expect(
            HandlerSelector.standard(environment: ["PATH": "/nonexistent"], inputIsTerminal: true)
                .map(\.arguments)
                == .failure(
                    .init(
                        code: .noSelector,
                        message:
                            "no selector to choose with (none of fzf is on PATH); set UTI_SELECTOR or give --selector"))
        )
    }
}
