// swift-tools-version:6.1
import PackageDescription

// Benchmarks for Strata, side by side with apple/swift-configuration, Foundation and Python.
// Run: swift run -c release --package-path Benchmarks strata-bench   (see README.md)
let package = Package(
  name: "StrataBenchmarks",
  dependencies: [
    .package(name: "Strata", path: ".."),
    // JSON: the JSON file provider (FileProvider<JSONSnapshot>); Reloading: ReloadingFileProvider.
    .package(
      url: "https://github.com/apple/swift-configuration", exact: "1.4.0", traits: ["JSON", "Reloading"]),
    .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),  // FilePath, for the providers
  ],
  targets: [
    .target(name: "MallocCounter"),
    .executableTarget(name: "rss-launcher"),
    .executableTarget(
      name: "strata-bench",
      dependencies: [
        "MallocCounter",
        "rss-launcher",  // built alongside, run by the config-dump row
        .product(name: "Strata", package: "Strata"),
        .product(name: "Configuration", package: "swift-configuration"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
