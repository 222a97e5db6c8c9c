// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "greeter",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../Strata"),  // your clone of Strata, beside this package
    .package(path: "../Strata/Integrations"),
  ],
  targets: [
    .executableTarget(
      name: "greeter",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataYAML", package: "Integrations"),
      ])
  ]
)
