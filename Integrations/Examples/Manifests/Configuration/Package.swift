// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "greeter",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../Strata"),  // your clone of Strata, beside this package
    .package(path: "../Strata/Integrations"),
    .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
  ],
  targets: [
    .executableTarget(
      name: "greeter",
      dependencies: [
        .product(name: "Strata", package: "Strata"),
        .product(name: "StrataConfiguration", package: "Integrations"),
        .product(name: "Configuration", package: "swift-configuration"),
      ])
  ]
)
