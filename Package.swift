// swift-tools-version:6.1
//
// Tessera: a distributed transcoding farm on FFmpeg's libraries.
// Dependencies point one way:
//   tessera (CLI) → TesseraFarm (LocalFarm, FarmServer) → TesseraCoordinator / TesseraWorker / TesseraDashboard
//   tessera → TesseraClient;  TesseraCoordinator, TesseraDashboard → TesseraHTTP (FarmService, the HTTP API,
//   auth, middleware) → TesseraCore
//                 → TesseraMedia → TesseraCompute → TesseraAV → TesseraCore
//                 → TesseraWire (protobuf + ZeroMQ) ─────────────→ TesseraCore
//   C modules: CFFmpeg (AV, Compute, Media), CVulkan (Compute), CZeroMQ (Wire), CTesseraKernels (Compute:
//   our SIMD loops). Plugin: SPIRVBuilder (Compute's shaders, compiled by glslc as the package builds).
// TesseraCore imports no C module.
import PackageDescription

let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tessera", targets: ["tessera"]),
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        .library(name: "TesseraMedia", targets: ["TesseraMedia"]),
        .library(name: "TesseraCompute", targets: ["TesseraCompute"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The coordinator's /metrics: swift-metrics' API, rendered by a Prometheus registry per coordinator.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // NIOLockedValueBox, for state shared by reference between threads and tasks (already in the graph via Hummingbird).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // HTTP request parts as the server's channel sees them, for the request-body deadline (in the graph
        // via Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // HMAC-SHA256 for the dashboard's session cookie (already in the graph via swift-certificates).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // C libraries, found with pkg-config. Each has a shim header for macros Swift cannot import.
        // CFFmpeg: SwiftPM reads one .pc file; libavformat's pulls in the include path, and the
        // module map links the six libav* libraries (all from the same FFmpeg 5.1 build).
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [
                .apt([
                    "libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev",
                    "libswresample-dev", "libavfilter-dev",
                ])
            ]),
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        .systemLibrary(name: "CVulkan", pkgConfig: "vulkan", providers: [.apt(["libvulkan-dev"])]),

        .target(name: "TesseraCore"),
        // Swift owners of libav* objects (frames, packets, the error helper), shared by Compute and Media.
        .target(name: "TesseraAV", dependencies: ["TesseraCore", "CFFmpeg"]),
        // Tessera's own SIMD loops for the CPU path (AVX2 behind a run-time check, portable C otherwise).
        .target(name: "CTesseraKernels"),
        // The compute shaders (TesseraCompute/Shaders) are compiled to SPIR-V by glslc as the package builds.
        .plugin(name: "SPIRVBuilder", capability: .buildTool()),
        .target(
            name: "TesseraCompute",
            dependencies: ["TesseraCore", "TesseraAV", "CFFmpeg", "CVulkan", "CTesseraKernels"],
            exclude: ["Shaders"], plugins: ["SPIRVBuilder"]),
        .target(name: "TesseraMedia", dependencies: ["TesseraCore", "TesseraAV", "TesseraCompute", "CFFmpeg"]),
        // Frames/s of TesseraCompute's processors, driven by Benchmarks/compute/run.sh beside ffmpeg's filters.
        .executableTarget(
            name: "tessera-compute-bench", dependencies: ["TesseraCompute", "TesseraAV", "TesseraCore", "CFFmpeg"],
            path: "Benchmarks/compute", exclude: ["run.sh", "README.md"]),
        // Throughput and latency of TesseraWire's sockets and codec over TCP loopback (Benchmarks/wire/README.md).
        .executableTarget(
            name: "tessera-wire-bench",
            dependencies: [
                "TesseraWire", "TesseraCore", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ], path: "Benchmarks/wire", exclude: ["README.md"]),
        // The farm's wire: generated protobuf types (Protocols/tessera.proto), ZeroMQ sockets, CURVE keys.
        .target(
            name: "TesseraWire",
            dependencies: [
                "TesseraCore", "CZeroMQ", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]),
        // The farm's HTTP face, as Hummingbird's examples shape one: FarmService (what the farm offers) and
        // its errors, the API's routes, bearer and cookie auth, the guards and middleware. Nothing of the
        // coordinator's machinery (SQLite, ZeroMQ, media) is below it.
        .target(
            name: "TesseraHTTP",
            dependencies: [
                "TesseraCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Job store (SQLite), dispatcher and leases, segment spool, job runners, metrics: a FarmService.
        .target(
            name: "TesseraCoordinator",
            dependencies: [
                "TesseraCore", "TesseraMedia", "TesseraCompute", "TesseraWire", "TesseraHTTP",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // The live web page at `/` and its event stream (`/v1/events`), over FarmService only.
        .target(
            name: "TesseraDashboard",
            dependencies: [
                "TesseraCore", "TesseraHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The page's style and script, compiled into the binary (no resource bundle to deploy).
            resources: [
                .embedInCode("Assets/dashboard.css"), .embedInCode("Assets/dashboard.js"),
                .embedInCode("Assets/player.js"),
            ]),
        // The worker loop: connect, announce, take tasks, transcode segments, report.
        .target(
            name: "TesseraWorker",
            dependencies: [
                "TesseraCore", "TesseraMedia", "TesseraCompute", "TesseraWire",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // A coordinator and N workers in one process (`tessera run`, tests, benchmarks).
        .target(
            name: "TesseraFarm",
            dependencies: [
                "TesseraCore", "TesseraCoordinator", "TesseraWorker", "TesseraDashboard", "TesseraHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The coordinator's HTTP API as the client CLI speaks it (Protocols/openapi.yaml).
        .target(name: "TesseraClient", dependencies: ["TesseraCore"]),
        // Workers that speak the wire but do no work, for the benchmarks below.
        .target(name: "TesseraBenchEcho", dependencies: ["TesseraWire"], path: "Benchmarks/echo"),
        // The farm's own overhead (dispatch and result latency, segments/s) with echo workers.
        .executableTarget(
            name: "tessera-farm-bench",
            dependencies: [
                "TesseraCoordinator", "TesseraWire", "TesseraCore", "TesseraBenchEcho",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/farm"),
        // The scheduling model: a film on N unlike workers through the coordinator's own scheduling code.
        .executableTarget(
            name: "tessera-farm-model",
            dependencies: [
                "TesseraCoordinator", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/farm-sim", exclude: ["README.md", "measure.py", "sample-input.json"]),
        // The dashboard and metrics under load: a real coordinator process, 200 echo workers, 10,000 jobs.
        .executableTarget(
            name: "tessera-load-bench",
            dependencies: ["TesseraCoordinator", "TesseraClient", "TesseraCore", "TesseraBenchEcho"],
            path: "Benchmarks/load", exclude: ["page.py"]),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "TesseraCore", "TesseraAV", "TesseraMedia", "TesseraCompute",
                "TesseraWire", "TesseraCoordinator", "TesseraWorker", "TesseraClient", "TesseraFarm",
                "TesseraDashboard", "TesseraHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),

        // Media generation and independent checks (ffmpeg/ffprobe CLIs) shared by the test targets.
        .target(name: "TesseraTestSupport", dependencies: ["TesseraClient"], path: "Tests/TesseraTestSupport"),
        .testTarget(
            name: "TesseraCoreTests",
            dependencies: [
                "TesseraCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "TesseraComputeTests",
            dependencies: [
                "TesseraCompute", "TesseraAV", "TesseraCore", "CFFmpeg", "TesseraTestSupport",
            ]),
        .testTarget(
            name: "TesseraMediaTests",
            dependencies: [
                "TesseraMedia", "TesseraAV", "TesseraCompute", "TesseraCore", "CFFmpeg", "TesseraTestSupport",
                // RetimePlanTests imports it: without the edge the build fails whenever it is not built first.
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(name: "TesseraCLITests", dependencies: ["TesseraCore", "TesseraTestSupport"]),
        // The Deploy folder (Dockerfile, compose, Kubernetes, systemd, Prometheus) against the CLI it runs.
        .testTarget(name: "TesseraDeployTests", dependencies: ["TesseraTestSupport"]),
        .testTarget(
            name: "TesseraWireTests",
            dependencies: [
                "TesseraWire", "TesseraCore", "CZeroMQ",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        // An in-memory FarmService and a real HTTP server on port 0, shared by the coordinator's HTTP tests
        // and the dashboard's.
        .target(
            name: "TesseraHTTPTestSupport",
            dependencies: [
                "TesseraHTTP", "TesseraCoordinator", "TesseraClient", "TesseraCore", "TesseraTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TesseraHTTPTestSupport"),
        // The HTTP API alone, over an in-memory FarmService.
        .testTarget(
            name: "TesseraHTTPTests",
            dependencies: [
                "TesseraHTTP", "TesseraCoordinator", "TesseraClient", "TesseraCore", "TesseraTestSupport",
                "TesseraHTTPTestSupport", "TesseraDashboard",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .testTarget(
            name: "TesseraCoordinatorTests",
            dependencies: [
                "TesseraCoordinator", "TesseraClient", "TesseraCore", "TesseraMedia", "TesseraWire",
                "TesseraTestSupport",
                "TesseraHTTPTestSupport", "TesseraDashboard",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .testTarget(
            name: "TesseraDashboardTests",
            dependencies: [
                "TesseraDashboard", "TesseraHTTP", "TesseraCoordinator", "TesseraCore", "TesseraHTTPTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        // End-to-end: real coordinator and worker processes on loopback.
        .testTarget(
            name: "TesseraFarmTests",
            dependencies: [
                "TesseraCore", "TesseraClient", "TesseraWire", "TesseraFarm", "TesseraCoordinator",
                // FarmLyingWorkerTests encodes segments itself (the real SegmentRunner) before lying about them.
                "TesseraMedia", "TesseraCompute", "TesseraAV",
                // EchoWorkerTests: the benchmarks' echo workers still speak the protocol.
                "TesseraBenchEcho", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "TesseraTestSupport",
            ]),
    ]
)
