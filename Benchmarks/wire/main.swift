// tessera-wire-bench: throughput and latency of TesseraWire over TCP loopback, DEALER → ROUTER, each
// side on its own thread. See README.md for what each row measures.
//
// usage: tessera-wire-bench [--messages N] [--megabytes M] [--rounds R]
import Foundation
import TesseraCore
import TesseraWire

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tessera-wire-bench: \(message)\n".utf8))
    exit(1)
}

var options = (messages: 48, megabytes: 8, rounds: 5000)
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
        fail("\(flag) needs a positive number")
    }
    switch flag {
    case "--messages": options.messages = value
    case "--megabytes": options.megabytes = value
    case "--rounds": options.rounds = value
    default: fail("unknown option \(flag); see Benchmarks/wire/README.md")
    }
}

let payloadBytes = options.megabytes << 20
let cores = ProcessInfo.processInfo.activeProcessorCount
let load =
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ") ?? "?"
print("tessera-wire-bench: TCP loopback, DEALER → ROUTER, one thread per side, \(cores) cores, load \(load)")
print("")
print("throughput       payload/msg  messages   seconds      GB/s")
do {
    for mode in ThroughputMode.allCases {
        let result = try measureThroughput(mode, payloadBytes: payloadBytes, messages: options.messages)
        let gigabytesPerSecond = Double(result.payloadBytes) / result.seconds / 1e9
        print(
            String(
                format: "%-16@ %8.1f MB  %8d  %8.3f  %8.2f", mode.rawValue as NSString,
                Double(payloadBytes) / 1e6, options.messages, result.seconds, gigabytesPerSecond))
    }
    let codec = try measureCodec(payloadBytes: payloadBytes, repetitions: 16)
    print(
        String(
            format: "%-16@ %8.1f MB  encode %6.2f GB/s, decode %6.2f GB/s (one thread, no socket)",
            "proto alone" as NSString, Double(payloadBytes) / 1e6, codec.encode, codec.decode))
    print("")
    let latency = try measureLatency(rounds: options.rounds)
    print("round trip       envelope     rounds     p50 µs    p99 µs    max µs")
    print(
        String(
            format: "%-16@ %8d B  %8d  %8.1f  %8.1f  %8.1f", "Heartbeat" as NSString, latency.envelopeBytes,
            options.rounds, latency.p50, latency.p99, latency.max))
} catch {
    fail("\(error)")
}
