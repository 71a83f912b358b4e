#if canImport(Glibc)
    import Glibc
#endif

/// Runs libFuzzer over one input format.
///
/// Each fuzz executable's `main.swift` calls `fuzz(_:)` with the work to do
/// for one input. The executables are built with
/// `-sanitize=fuzzer,address`, which links libFuzzer; `LLVMFuzzerRunDriver`
/// then parses libFuzzer's own command-line options and calls the body for
/// every generated input until it stops.

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The body of the running fuzzer; set once, before libFuzzer starts.
nonisolated(unsafe) private var currentBody: ((UnsafeRawBufferPointer) -> Void)?

/// libFuzzer's entry point for one input. Defined so libFuzzer's own `main`
/// object links; the driver passes the same function to `LLVMFuzzerRunDriver`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    currentBody?(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : count))
    return 0
}

/// Hands `body` to libFuzzer with this process's arguments and exits with
/// libFuzzer's status.
public func fuzz(_ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    currentBody = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
    exit(status)
}
