// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "greeter",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../Strata"),  // your clone of Strata, beside this package
    .package(path: "../Strata/Integrations"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
  ],
  targets: [
    .executableTarget(
      name: "greeter",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataServiceLifecycle", package: "Integrations"),
        .product(name: "StrataLogging", package: "Integrations"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ])
  ]
)
