// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Strata",
  products: [
    .library(name: "Strata", targets: ["Strata"]),
    .executable(name: "config-dump", targets: ["config-dump"]),
  ],
  targets: [
    .target(name: "Strata"),
    .executableTarget(name: "config-dump", dependencies: ["Strata"]),
    .testTarget(name: "StrataTests", dependencies: ["Strata", "config-dump"]),
  ],
  swiftLanguageModes: [.v6]
)
