// swift-tools-version:6.2
import PackageDescription

// Benchmark thresholds that CI fails on: heap allocations per operation (ordo-one/benchmark, the
// package-benchmark plugin, as swift-log and swift-configuration gate theirs) and instructions per
// operation (valgrind's callgrind over `strata-instructions`; check-instructions.py). Its own package, so
// that CI builds neither swift-configuration (Benchmarks/) nor this for the library. See BENCHMARKS.md.
//   swift package --package-path Benchmarks/Thresholds benchmark thresholds check
//   Benchmarks/Thresholds/check-instructions.py
let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "StrataThresholds",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Strata", path: "../.."),
    // The malloc counts come from the MallocInterposer trait; its other default trait (the Swift 6.3
    // runtime interposer, for retain/release counts) is left off.
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The measured operations and their fixtures, shared by both checks.
    .target(
      name: "StrataWorkloads", dependencies: [.product(name: "Strata", package: "Strata")],
      swiftSettings: swiftSettings),
    // Runs one workload a given number of times, for callgrind.
    .executableTarget(
      name: "strata-instructions", dependencies: ["StrataWorkloads"], swiftSettings: swiftSettings),
    // The allocation thresholds (package-benchmark finds benchmark targets under Benchmarks/).
    .executableTarget(
      name: "StrataThresholds",
      dependencies: ["StrataWorkloads", .product(name: "Benchmark", package: "benchmark")],
      path: "Benchmarks/StrataThresholds",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
