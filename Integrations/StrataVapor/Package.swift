// swift-tools-version:6.2
import PackageDescription

// Strata with Vapor 4, a package of its own: Vapor and its dependencies take minutes to build cold, which
// the Integrations package's build (and CI's) does not pay for.
// Build and test: swift build --package-path Integrations/Vapor && swift test --package-path Integrations/Vapor
// The upcoming features of the root and Integrations packages, on every target.
let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "StrataVapor",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StrataVapor", targets: ["StrataVapor"]),
    .executable(name: "vapor-server", targets: ["VaporServer"]),
  ],
  dependencies: [
    .package(name: "Strata", path: "../.."),
    // StrataServiceLifecycle (the store's run loop, SIGHUP) and StrataLogging (the live log level).
    .package(name: "StrataIntegrations", path: ".."),
    .package(url: "https://github.com/vapor/vapor", from: "4.122.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    // Already in Vapor's graph (its HTTP client and ByteBuffer): the tests' requests.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
  ],
  targets: [
    // The store run by a Vapor LifecycleHandler, Strata's options split from Vapor's command line, one
    // logging bootstrap for both.
    .target(
      name: "StrataVapor",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataServiceLifecycle", package: "StrataIntegrations"),
        .product(name: "StrataLogging", package: "StrataIntegrations"),
        .product(name: "Vapor", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: swiftSettings),
    // A Vapor 4 server configured by Strata.
    .executableTarget(
      name: "VaporServer",
      dependencies: [
        "StrataVapor",
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataLogging", package: "StrataIntegrations"),
        .product(name: "Vapor", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Samples/VaporServer", exclude: ["root", "README.md"], swiftSettings: swiftSettings),
    .testTarget(
      name: "StrataVaporTests",
      dependencies: [
        "StrataVapor", "VaporServer",
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataLogging", package: "StrataIntegrations"),
        .product(name: "Vapor", package: "vapor"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
