// One Apple-API lookup in a new process, as a server or an app makes its
// first: prints the microseconds from before the lookup to its answer and
// the process's peak resident memory. tools/bench/run-benchmarks.py runs it
// with a warm compiled cache and with the cache turned off.
//
//   uti-first-lookup [EXTENSION]     (default: jpg)
import Foundation
import UniformTypeIdentifiers

let ext = CommandLine.arguments.dropFirst().first ?? "jpg"
var start = timespec(), end = timespec()
clock_gettime(CLOCK_MONOTONIC, &start)
let type = UTType(filenameExtension: ext)
clock_gettime(CLOCK_MONOTONIC, &end)
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let micros = Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3
print("\(type?.identifier ?? "none")\t\(String(format: "%.0f", micros))\t\(usage.ru_maxrss)")
