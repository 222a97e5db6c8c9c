// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "hello",
  platforms: [.macOS(.v15)],  // Strata needs macOS 15 or later (Linux has no minimum)
  dependencies: [
    .package(path: "../Strata")  // your clone of Strata, beside this package
  ],
  targets: [
    .executableTarget(name: "hello", dependencies: [.product(name: "Strata", package: "Strata")])
  ]
)
