// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "greeter",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../Strata"),  // your clone of Strata, beside this package
    .package(path: "../Strata/Integrations"),
    .package(path: "../Strata/Integrations/StrataVapor"),
    .package(url: "https://github.com/vapor/vapor", from: "4.122.0"),
  ],
  targets: [
    .executableTarget(
      name: "greeter",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataLogging", package: "Integrations"),
        .product(name: "StrataVapor", package: "StrataVapor"),
        .product(name: "Vapor", package: "vapor"),
      ])
  ]
)
