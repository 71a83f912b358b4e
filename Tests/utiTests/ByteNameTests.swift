import Foundation
import TestSupport
import Testing

/// Names are bytes: a path that is not UTF-8 is typed, printed (escaped as
/// `uti inbox` escapes it) and handed on exactly, through every door that
/// takes paths.
@Suite struct ByteNameTests {
    /// `bad\xffname.png`, a real PNG, in a folder of its own.
    static func folder() throws -> TemporaryFolder {
        let folder = TemporaryFolder("uti-bytes")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        try folder.write(name: Array("bad".utf8) + [0xFF] + Array("name.png".utf8), bytes: png)
        return folder
    }

    /// Runs `script` in `sh` in `directory`, with `$UTI` the built tool and
    /// `$NAME` the name's bytes.
    static func shell(_ script: String, in directory: String) throws -> Run {
        try Run(
            ["-c", "NAME=$(printf 'bad\\377name.png'); UTI=\"$0\"; " + script, Run.binary.path],
            environment: ["XDG_DATA_DIRS": "/usr/share"], executable: "/bin/sh", directory: directory)
    }

    @Test func everyDoorTakesTheBytes() throws {
        let folder = try Self.folder()
        let file = try Self.shell(#""$UTI" file "$NAME""#, in: folder.path)
        #expect(
            file.status == 0 && file.stdout == "bad\\xffname.png: public.png (image/png, PNG image) by name\n",
            "\(file.stdout)\(file.stderr)")
        let charset = try Self.shell(#""$UTI" file -i "$NAME""#, in: folder.path)
        #expect(charset.stdout == "bad\\xffname.png: image/png; charset=binary\n")
        let json = try Self.shell(#""$UTI" file --json "$NAME""#, in: folder.path)
        let object = try #require((try json.json() as? [[String: Any]])?.first)
        #expect(
            object["path"] as? String == "bad\\xffname.png"
                && object["pathHex"] as? String == "626164ff6e616d652e706e67")
        #expect(object["exists"] as? Bool == true)
        #expect(try Self.shell(#""$UTI" conforms "$NAME" public.image"#, in: folder.path).status == 0)
        #expect(try Self.shell(#""$UTI" conforms --file "$NAME" public.text"#, in: folder.path).status == 1)
        // find -print0 | filter -0 hands the exact bytes on: stat finds the file by them.
        let filter = try Self.shell(
            #"find . -type f -print0 | "$UTI" filter -0 public.image | xargs -0 stat -c %s"#,
            in: folder.path)
        #expect(filter.status == 0 && filter.stdout == "16\n", "\(filter.stdout)\(filter.stderr)")
        let lines = try Self.shell(
            #"printf '%s\n' "$NAME" | "$UTI" filter public.image | xargs stat -c %s"#, in: folder.path)
        #expect(lines.stdout == "16\n", "\(lines.stderr)")
        let batch = try Self.shell(#"printf '%s\n' "$NAME" | "$UTI" batch --file"#, in: folder.path)
        #expect(batch.status == 0 && batch.stdout == "public.png\n")
        let open = try Self.shell(#""$UTI" open-in --json "$NAME""#, in: folder.path)
        let opened = try #require((try open.json() as? [[String: Any]])?.first)
        #expect(
            opened["pathHex"] as? String == "626164ff6e616d652e706e67" && opened["type"] as? String == "public.png",
            "\(open.stdout)\(open.stderr)")
    }

    @Test func aQueryThatIsNotUTF8IsRefused() throws {
        let run = try Self.shell(#""$UTI" "$NAME""#, in: "/")
        #expect(run.status == 1 && run.stderr.contains("is not UTF-8 text; for a file: uti file $'bad\\xffname.png'"))
    }
}

extension ByteNameTests {
    @Test func aBatchQueryThatIsNotUTF8IsRefused() throws {
        let run = try Self.shell(#"printf 'x\377.pdf\njpg\n' | "$UTI" batch"#, in: "/")
        #expect(run.status == 1 && run.stdout == "\npublic.jpeg\n")
        #expect(run.stderr.contains("line 1: x\\xff.pdf: is not UTF-8 text"))
    }

    /// A name's length is its bytes: 200 bytes that are not UTF-8 make a
    /// name a file system holds, though their repair as text is 600 bytes.
    @Test func aLongNameThatIsNotUTF8IsTypedByItsBytes() throws {
        let run = try Self.shell(
            #"printf '%0200d.jpg\n' 0 | tr 0 '\377' | "$UTI" batch --file"#, in: "/")
        #expect(run.status == 0 && run.stdout == "public.jpeg\n", "\(run.stderr)")
    }
}

/// A folder the environment names in bytes that are not UTF-8 is never
/// read as another one (the bytes replaced): uti stops before it starts.
@Suite struct UndecodableEnvironmentTests {
    @Test(arguments: [
        ("XDG_CONFIG_HOME", ["set-default", "md", "vim.desktop"]), ("UTI_CACHE_DIR", ["-b", "jpg"]),
        ("XDG_DATA_HOME", ["file", "x.png"]), ("HOME", ["lookup", "jpg"]),
    ])
    func aPathVariableThatIsNotUTF8StopsUti(variable: String, arguments: [String]) throws {
        let folder = TemporaryFolder("uti-env")
        let script =
            "\(variable)=\"$(printf '\(folder.path)/bad\\377')\"; export \(variable); mkdir -p \"$\(variable)\"; "
            + "\"$0\" \(arguments.joined(separator: " ")); echo \"exit $?\"; ls \"\(folder.path)\""
        let run = try Run(["-c", script, Run.binary.path], executable: "/bin/sh")
        #expect(run.stdout.hasPrefix("exit 2\n"), "\(run.stdout)")
        #expect(
            run.stderr == "uti: \(variable) is not UTF-8 text, so uti cannot name the folder it means; "
                + "set it to a UTF-8 path (or unset it)\n")
        // Nothing was made under a changed name.
        let made = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(made.count == 1, "\(made)")
    }
}
