// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    .library(name: "StrataTesting", targets: ["StrataTesting"]),
    .executable(name: "config-dump", targets: ["config-dump"]),
    .executable(name: "settings-example", targets: ["settings-example"]),
    .executable(name: "hot-reload-server", targets: ["hot-reload-server"]),
  ],
  targets: [
    .target(name: "Strata"),
    // The conformance kit for sources: no test framework, failures are values.
    .target(name: "StrataTesting", dependencies: ["Strata"]),
    .executableTarget(name: "config-dump", dependencies: ["Strata"]),
    .executableTarget(name: "settings-example", dependencies: ["Strata"], path: "Samples/SettingsExample"),
    .executableTarget(
      name: "hot-reload-server", dependencies: ["Strata"], path: "Samples/HotReloadServer/Sources"),
    // The README's Quick start, as a newcomer writes it (its own package manifest is beside it).
    .executableTarget(
      name: "quick-start", dependencies: ["Strata"], path: "Samples/QuickStart/Sources/hello"),
    // A helper process for the stress tests only (killed mid-write, run under inotify limits, soaked).
    .executableTarget(name: "strata-stress-child", dependencies: ["Strata"], path: "Tests/StressChild"),
    .testTarget(
      name: "StrataTests",
      dependencies: [
        "Strata", "StrataTesting", "config-dump", "settings-example", "hot-reload-server",
        "strata-stress-child", "quick-start",
      ],
      exclude: ["Formats/INI/RealWorld"]
    ),
    // Every Swift sample of the README and the DocC articles, compiled (Scripts/check-doc-snippets.py
    // checks that the documents show them as they are here).
    .testTarget(name: "DocSnippets", dependencies: ["Strata", "StrataTesting"], path: "Tests/DocSnippets"),
  ],
  swiftLanguageModes: [.v6]
)
