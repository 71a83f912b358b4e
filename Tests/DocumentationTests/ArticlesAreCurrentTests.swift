import Foundation
import Testing

/// The examples run here are the articles' own: each ```swift block of each
/// article, imports aside, stands line for line in its generated file.
@Suite struct ArticlesAreCurrentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyArticleBlockIsCompiledHere() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        var articles = 0
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent(module + ".docc")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: catalog.path) else { continue }
            for name in names where name.hasSuffix(".md") {
                let text = try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)
                let blocks = text.components(separatedBy: "```swift\n").dropFirst().map {
                    $0.components(separatedBy: "\n```")[0]
                }
                guard !blocks.isEmpty else { continue }
                articles += 1
                let generated = Self.root.appendingPathComponent("Tests/DocumentationTests/Articles")
                    .appendingPathComponent("\(module)-\(name.dropLast(3)).swift")
                let code = try String(contentsOf: generated, encoding: .utf8)
                for block in blocks {
                    for line in block.split(separator: "\n")
                    where !line.hasPrefix("import ") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
                        #expect(
                            code.contains("        " + line), "\(module)/\(name): run tools/extract-article-code.py")
                    }
                }
            }
        }
        #expect(articles == 5)
    }
}
