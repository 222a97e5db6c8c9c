// swift-tools-version:6.2
import PackageDescription

// Strata with the Swift server ecosystem: one product per integration. The root package stays
// dependency-free; everything here depends on it by path.
// Build and test: swift build --package-path Integrations && swift test --package-path Integrations
// The upcoming features the root package enables (as swift-log, hummingbird and swift-configuration do),
// on every target of the package.
let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "StrataIntegrations",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StrataServiceLifecycle", targets: ["StrataServiceLifecycle"]),
    .library(name: "StrataLogging", targets: ["StrataLogging"]),
    .library(name: "StrataMetrics", targets: ["StrataMetrics"]),
    .library(name: "StrataConfiguration", targets: ["StrataConfiguration"]),
    .library(name: "StrataEtcd", targets: ["StrataEtcd"]),
    .library(name: "StrataYAML", targets: ["StrataYAML"]),
    .executable(name: "hummingbird-server", targets: ["HummingbirdServer"]),
    .executable(name: "strata-etcd-bench", targets: ["StrataEtcdBenchmark"]),
    .executable(name: "strata-yaml-fuzz", targets: ["StrataYAMLFuzz"]),
    .executable(name: "config-dump-yaml", targets: ["ConfigDumpYAML"]),
  ],
  dependencies: [
    .package(name: "Strata", path: ".."),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
    // The etcd source's TLS configuration (async-http-client's own TLS library).
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    // ByteBuffer and event loops, which async-http-client's API is made of.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    // The etcd source's gRPC transport: grpc-swift 2, its HTTP/2 transport over SwiftNIO, and protobuf
    // (the messages are generated and committed: Scripts/generate-etcd-grpc.sh).
    .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.0"),
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.0"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.0"),
    .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    // YAML through libyaml (swift-configuration's YAML provider uses the same package).
    .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
  ],
  targets: [
    // The store's run loop as a ServiceGroup service; SIGHUP through ServiceLifecycle's signals.
    .target(
      name: "StrataServiceLifecycle",
      dependencies: [
        "StrataLogging",
        .product(name: "Strata", package: "Strata"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings),
    // Store events to a swift-log Logger; a log handler whose level follows a setting.
    .target(
      name: "StrataLogging",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings),
    // Store events as swift-metrics counters and gauges.
    .target(
      name: "StrataMetrics",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
      ],
      swiftSettings: swiftSettings),
    // Strata as a swift-configuration ConfigProvider.
    .target(
      name: "StrataConfiguration",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "Configuration", package: "swift-configuration"),
      ],
      swiftSettings: swiftSettings),
    // An etcd v3 source over etcd's HTTP/JSON gateway, or its gRPC API for reads of the prefix.
    .target(
      name: "StrataEtcd",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
      ],
      swiftSettings: swiftSettings),
    // YAML files (1.2 core schema) through Yams, with the line and column of every value.
    .target(
      name: "StrataYAML",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "Yams", package: "Yams"),
      ],
      swiftSettings: swiftSettings),
    // A Hummingbird 2 server configured by Strata.
    .executableTarget(
      name: "HummingbirdServer",
      dependencies: [
        "StrataServiceLifecycle", "StrataLogging", "StrataConfiguration", "StrataEtcd",
        .product(name: "Strata", package: "Strata"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Configuration", package: "swift-configuration"),
      ],
      path: "Samples/HummingbirdServer", exclude: ["root", "README.md"], swiftSettings: swiftSettings),
    // The complete programs the documentation shows for each product (Examples/Manifests holds the
    // manifest each one's package would have); built here so that they compile, with the language
    // settings of such a package (not this package's upcoming features).
    .executableTarget(
      name: "ServiceExample",
      dependencies: [
        "StrataServiceLifecycle", "StrataLogging",
        .product(name: "Strata", package: "Strata"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/Service"),
    .executableTarget(
      name: "MetricsExample",
      dependencies: ["StrataMetrics", .product(name: "Strata", package: "Strata")],
      path: "Examples/Metrics"),
    .executableTarget(
      name: "ConfigurationExample",
      dependencies: [
        "StrataConfiguration",
        .product(name: "Strata", package: "Strata"),
        .product(name: "Configuration", package: "swift-configuration"),
      ],
      path: "Examples/Configuration"),
    .executableTarget(
      name: "EtcdExample",
      dependencies: ["StrataEtcd", .product(name: "Strata", package: "Strata")],
      path: "Examples/Etcd"),
    .executableTarget(
      name: "YAMLExample",
      dependencies: ["StrataYAML", .product(name: "Strata", package: "Strata")],
      path: "Examples/YAML"),
    // The etcd source beside etcdctl on a real etcd server: watch latency, start-up, memory per key.
    // Run it built for release: swift build -c release --package-path Integrations --product strata-etcd-bench
    .executableTarget(
      name: "StrataEtcdBenchmark",
      dependencies: [
        "StrataEtcd", "CMallocInfo",
        .product(name: "Strata", package: "Strata"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      path: "Benchmarks/StrataEtcdBenchmark", swiftSettings: swiftSettings),
    // config-dump with YAML registered (the tool is the root package's ConfigDumpTool).
    .executableTarget(
      name: "ConfigDumpYAML",
      dependencies: [
        "StrataYAML",
        .product(name: "ConfigDumpTool", package: "Strata"),
        .product(name: "Strata", package: "Strata"),
      ],
      path: "Tools/ConfigDumpYAML", swiftSettings: swiftSettings),
    // The YAML format under libFuzzer (Scripts/fuzz-yaml.sh builds it with --sanitize=fuzzer); built
    // plainly, it replays the files it is given.
    .executableTarget(
      name: "StrataYAMLFuzz",
      dependencies: ["StrataYAML", .product(name: "Strata", package: "Strata")],
      path: "Fuzz/YAML", swiftSettings: swiftSettings),
    // glibc's malloc statistics for the benchmark's bytes per key (Glibc's module does not export them).
    .target(name: "CMallocInfo", path: "Benchmarks/CMallocInfo"),
    // The YAML format's tests, its corpus against PyYAML, and its fuzz target's entry point.
    .testTarget(
      name: "StrataYAMLTests",
      dependencies: [
        "StrataYAML", "ConfigDumpYAML",
        .product(name: "Strata", package: "Strata"),
      ],
      exclude: ["Corpus"], swiftSettings: swiftSettings),
    .testTarget(
      name: "StrataIntegrationsTests",
      dependencies: [
        "StrataServiceLifecycle", "StrataLogging", "StrataMetrics", "StrataConfiguration", "StrataEtcd",
        "StrataYAML", "HummingbirdServer",
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataTesting", package: "Strata"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "ConfigurationTesting", package: "swift-configuration"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
