// snippet: conformance
import StrataTesting  // .product(name: "StrataTesting", package: "Strata") in your test target
import Testing

@Test func pushingSourceConforms() async {
  let source = PushingSource()
  let kit = LayerConformance(layer: source, change: { source.push("9000", forName: "port") })
  let failures = await kit.run(timeout: .seconds(300))  // generous: a CI machine may be busy
  #expect(failures.isEmpty, "\(failures)")
}
// snippet: end
