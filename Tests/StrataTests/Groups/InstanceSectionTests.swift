import Testing

@testable import Strata

struct TenantSettings: SettingsGroup {
  @Setting var quota = 10
  @Setting var name = ""
}

/// One group class, many sections: groups made at run time.
@Suite struct InstanceSectionTests {
  @Test func eachInstanceReadsItsOwnSection() throws {
    let store = SettingsStore.inMemory(
      try parse(
        #"{"tenants": {"acme": {"quota": 50, "name": "Acme"}, "globex": {"quota": 7}}}"#, as: JSONFormat()
      )
      .root)
    let tenants = ["acme", "globex", "initech"].map { TenantSettings(store: store, section: "tenants.\($0)") }
    #expect(tenants.map(\.quota) == [50, 7, 10])
    #expect(tenants.map(\.name) == ["Acme", "", ""])
    #expect(tenants[0].$quota.key == "tenants.acme.quota")
    #expect(tenants[2].sectionPath == "tenants.initech")
    #expect(store.declaredKeys.contains("tenants.globex.quota"))
    // Without a section, the class's own.
    #expect(TenantSettings(store: store).sectionPath == "tenant")
  }
}
