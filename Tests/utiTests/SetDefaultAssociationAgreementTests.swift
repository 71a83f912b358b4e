import Foundation
import TestSupport
import Testing

/// `uti defaults` marks the keys only `uti` reads: a wildcard or an
/// identifier an earlier `set-default` wrote, which GIO and xdg-mime ignore.
@Suite struct SetDefaultAssociationAgreementTests {
    typealias Tree = SetDefaultAgreementTests.Tree

    /// `uti defaults` marks the keys only uti reads, in text and JSON.
    @Test func defaultsMarksTheKeysOnlyUTIReads() throws {
        let tree = try Tree(list: SetDefaultAgreementTests.formerList + "image/png=myview.desktop;\n")
        let run = try Run(["defaults"], environment: tree.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let mark = "    only uti reads this key; set it again to write MIME type keys"
        for key in ["image/*", "public.image"] {
            let index = try #require(lines.firstIndex { $0.hasPrefix(key + " ") })
            #expect(lines.indices.contains(index + 1) && lines[index + 1] == mark, "\(run.stdout)")
        }
        let png = try #require(lines.firstIndex { $0.hasPrefix("image/png ") })
        #expect(!lines.indices.contains(png + 1) || lines[png + 1] != mark)
        let json = try Run(["defaults", "--json"], environment: tree.environment)
        let items = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        let marks = Dictionary(
            uniqueKeysWithValues: items.map { ($0["key"] as? String ?? "", $0["onlyUTIReads"] as? Bool) })
        #expect(marks == ["image/*": true, "public.image": true, "image/png": false])
    }
}
