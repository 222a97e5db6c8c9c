// swift-tools-version:6.2
import PackageDescription

// The upcoming features the Swift server ecosystem enables (swift-log, hummingbird, swift-configuration),
// on every target of the package.
let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "Strata",
  // `Atomic` and `Mutex` (Synchronization) need these releases; other platforms have no minimum.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    .library(name: "StrataTesting", targets: ["StrataTesting"]),
    .executable(name: "config-dump", targets: ["config-dump"]),
    // config-dump as a library, for a tool with more formats (Integrations' config-dump-yaml).
    .library(name: "ConfigDumpTool", targets: ["ConfigDumpTool"]),
    .executable(name: "settings-example", targets: ["settings-example"]),
    .executable(name: "hot-reload-server", targets: ["hot-reload-server"]),
  ],
  // `Inotify` compiles the inotify file-event backend in (it is Linux-only; elsewhere the store polls).
  // `swift build --disable-default-traits` builds the polling-only library on Linux too: CI tests it so.
  traits: [
    .default(enabledTraits: ["Inotify"]),
    .trait(name: "Inotify", description: "File events through inotify on Linux (else stat polling)."),
  ],
  targets: [
    // The one platform layer: the C library import chain and the calls spelled differently per system.
    // Not a product: Strata imports it internally (Locked's inlinable read path publicly, see there).
    .target(name: "StrataPlatform", dependencies: ["CStrataSignals"], swiftSettings: swiftSettings),
    // The one signal handler, in C: it reads its descriptor from a C atomic, never from Swift state.
    .target(name: "CStrataSignals"),
    .target(name: "Strata", dependencies: ["StrataPlatform"], swiftSettings: swiftSettings),
    // The conformance kit for sources: no test framework, failures are values.
    .target(name: "StrataTesting", dependencies: ["Strata"], swiftSettings: swiftSettings),
    // config-dump's options, output and exit statuses; the executable only calls ConfigDump.main().
    .target(
      name: "ConfigDumpTool", dependencies: ["Strata", "StrataPlatform"], swiftSettings: swiftSettings),
    .executableTarget(name: "config-dump", dependencies: ["ConfigDumpTool"], swiftSettings: swiftSettings),
    .executableTarget(
      name: "settings-example", dependencies: ["Strata"], path: "Samples/SettingsExample",
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "hot-reload-server", dependencies: ["Strata"], path: "Samples/HotReloadServer/Sources",
      swiftSettings: swiftSettings),
    // The README's Quick start, as a newcomer writes it (its own package manifest is beside it).
    .executableTarget(
      name: "quick-start", dependencies: ["Strata"], path: "Samples/QuickStart/Sources/hello",
      swiftSettings: swiftSettings),
    // A helper process for the stress tests only (killed mid-write, run under inotify limits, soaked).
    .executableTarget(
      name: "strata-stress-child", dependencies: ["Strata", "StrataPlatform"], path: "Tests/StressChild",
      swiftSettings: swiftSettings),
    .testTarget(
      name: "StrataTests",
      dependencies: [
        "Strata", "StrataPlatform", "StrataTesting", "config-dump", "settings-example", "hot-reload-server",
        "strata-stress-child", "quick-start",
      ],
      exclude: ["Formats/INI/RealWorld", "Formats/TOML/Corpus"],
      swiftSettings: swiftSettings
    ),
    // Every Swift sample of the README and the DocC articles, compiled (Scripts/check-doc-snippets.py
    // checks that the documents show them as they are here).
    .testTarget(
      name: "DocSnippets", dependencies: ["Strata", "StrataTesting"], path: "Tests/DocSnippets",
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
