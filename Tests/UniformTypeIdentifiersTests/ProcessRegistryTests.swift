import Foundation
import Testing

@testable import UniformTypeIdentifiers

/// The process's registry is built once, whichever thread asks first and
/// however many ask at once. Each check runs in a process of its own, whose
/// registry no other test has built yet.
@Suite struct ProcessRegistryTests {
    @Test func thirtyTwoThreadsAskingAtOnceShareOneBuild() async {
        await #expect(processExitsWith: .success) {
            // 32 threads of their own (not a pool's few), each waiting on the same start.
            let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            for _ in 0..<32 {
                Thread.detachNewThread {
                    start.wait()
                    _ = UTType(filenameExtension: "jpg")
                    done.signal()
                }
            }
            Thread.sleep(forTimeInterval: 0.2)
            for _ in 0..<32 { start.signal() }
            for _ in 0..<32 { done.wait() }
            let builds = ProcessTypeDeclarations.builds
            exit(builds == 1 && UTType(filenameExtension: "jpg")?.identifier == "public.jpeg" ? 0 : 1)
        }
    }

    @Test func declarationsAddedOnceTheBuildBeganAreRefused() async {
        await #expect(processExitsWith: .success) {
            _ = UTType.plainText.identifier
            let late = #"<plist version="1.0"><dict/></plist>"#
            do {
                try ProcessTypeDeclarations.add(propertyList: Data(late.utf8), name: "late.plist")
                exit(1)
            } catch let error as ProcessTypeDeclarations.Failure {
                exit(
                    error.problems == ["late.plist: declarations must be added before the first type is looked up"]
                        ? 0 : 2)
            } catch {
                exit(3)
            }
        }
    }
}

/// Identifiers with the characters Apple allows above U+007F decode and
/// are made as on a Mac.
@Suite struct NonASCIIIdentifierTests {
    @Test func cafeDecodesAndIsMade() throws {
        let decoded = try JSONDecoder().decode([UTType].self, from: Data(#"["com.example.café", "public.jpeg"]"#.utf8))
        #expect(decoded.map(\.identifier) == ["com.example.café", "public.jpeg"])
        #expect(UTType(exportedAs: "com.example.café").identifier == "com.example.café")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([UTType].self, from: Data("[\"com.example.\\u202Egpj\"]".utf8))
        }
    }
}
