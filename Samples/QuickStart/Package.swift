// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "hello",
  dependencies: [
    .package(path: "../Strata")  // your clone of Strata, beside this package
  ],
  targets: [
    .executableTarget(name: "hello", dependencies: [.product(name: "Strata", package: "Strata")])
  ]
)
