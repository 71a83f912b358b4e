import Foundation
import TestSupport
import Testing

/// The types and changes of macOS 13 and later in `Data/Additions.plist`,
/// each row through the built `uti`: bundled data alone, and with this
/// machine's MIME data and `mime.types`, which never change the answer for
/// a tag a bundled type declares.
@Suite struct NewerAppleTypesCommandTests {
    /// Bundled data alone; then the system's MIME data where the machine has it.
    static let environments: [[String: String]] = {
        var result: [[String: String]] = [[:]]
        if FileManager.default.fileExists(atPath: "/usr/share/mime/mime.cache") {
            var system = ["XDG_DATA_DIRS": "/usr/share"]
            if FileManager.default.fileExists(atPath: "/etc/mime.types") {
                system["UTI_MIME_TYPES"] = "/etc/mime.types"
            }
            result.append(system)
        }
        return result
    }()

    /// Identifier, the tags that name it, and supertypes it conforms to.
    static let rows: [(String, [String], [String])] = [
        ("com.apple.trace", ["atrc", "ATRC"], ["public.data", "public.log"]),
        ("com.apple.ktrace", ["ktrace"], ["com.apple.trace", "public.log", "public.data"]),
        (
            "com.apple.finance.order", ["order", "application/vnd.apple.finance.order"],
            ["public.data", "public.item"]
        ),
        ("com.pixar.universal-scene-description", ["usd", "usdc"], ["public.3d-content", "public.data"]),
        (
            "com.pixar.universal-scene-description-utf8", ["usda", "model/vnd.usda"],
            [
                "com.pixar.universal-scene-description", "public.utf8-plain-text", "public.plain-text",
                "public.3d-content",
            ]
        ),
        ("public.avif", ["avif", "avifs", "image/avif"], ["public.heif-standard", "public.image"]),
    ]

    @Test(arguments: rows)
    func lookupAndConformance(identifier: String, tags: [String], supertypes: [String]) throws {
        for environment in Self.environments {
            let where_ = environment.isEmpty ? "bundled data" : "system data"
            for tag in tags {
                let run = try Run([tag, "-b"], environment: environment)
                #expect(run.status == 0 && run.stdout == identifier + "\n", "uti \(tag) -b (\(where_)): \(run)")
            }
            for supertype in supertypes {
                let yes = try Run(["conforms", tags[0], supertype], environment: environment)
                #expect(yes.status == 0, "uti conforms \(tags[0]) \(supertype) (\(where_)): \(yes)")
                let byIdentifier = try Run(["conforms", identifier, supertype], environment: environment)
                #expect(byIdentifier.status == 0, "uti conforms \(identifier) \(supertype) (\(where_))")
            }
            let no = try Run(["conforms", tags[0], "public.movie"], environment: environment)
            #expect(no.status == 1 && no.stderr.isEmpty, "uti conforms \(tags[0]) public.movie (\(where_))")
        }
    }

    /// usda moved out of the USD type: the USD type no longer conforms to
    /// text, and the text form is a USD file.
    @Test func usdaMovedToItsOwnType() throws {
        #expect(try Run("conforms", "usd", "public.plain-text").status == 1)
        #expect(try Run("conforms", "usda", "com.pixar.universal-scene-description").status == 0)
        #expect(try Run("conforms", "usdz", "com.pixar.universal-scene-description").status == 1)
    }
}
