import Strata

/// A group of 100 Int settings, `s00` … `s99`. The scale rows make one instance per section
/// (`g0000`, `g0001`, …) with ``SettingsGroup/init(store:section:)``.
struct HundredSettings: SettingsGroup {
  @Setting var s00 = 0
  @Setting var s01 = 0
  @Setting var s02 = 0
  @Setting var s03 = 0
  @Setting var s04 = 0
  @Setting var s05 = 0
  @Setting var s06 = 0
  @Setting var s07 = 0
  @Setting var s08 = 0
  @Setting var s09 = 0
  @Setting var s10 = 0
  @Setting var s11 = 0
  @Setting var s12 = 0
  @Setting var s13 = 0
  @Setting var s14 = 0
  @Setting var s15 = 0
  @Setting var s16 = 0
  @Setting var s17 = 0
  @Setting var s18 = 0
  @Setting var s19 = 0
  @Setting var s20 = 0
  @Setting var s21 = 0
  @Setting var s22 = 0
  @Setting var s23 = 0
  @Setting var s24 = 0
  @Setting var s25 = 0
  @Setting var s26 = 0
  @Setting var s27 = 0
  @Setting var s28 = 0
  @Setting var s29 = 0
  @Setting var s30 = 0
  @Setting var s31 = 0
  @Setting var s32 = 0
  @Setting var s33 = 0
  @Setting var s34 = 0
  @Setting var s35 = 0
  @Setting var s36 = 0
  @Setting var s37 = 0
  @Setting var s38 = 0
  @Setting var s39 = 0
  @Setting var s40 = 0
  @Setting var s41 = 0
  @Setting var s42 = 0
  @Setting var s43 = 0
  @Setting var s44 = 0
  @Setting var s45 = 0
  @Setting var s46 = 0
  @Setting var s47 = 0
  @Setting var s48 = 0
  @Setting var s49 = 0
  @Setting var s50 = 0
  @Setting var s51 = 0
  @Setting var s52 = 0
  @Setting var s53 = 0
  @Setting var s54 = 0
  @Setting var s55 = 0
  @Setting var s56 = 0
  @Setting var s57 = 0
  @Setting var s58 = 0
  @Setting var s59 = 0
  @Setting var s60 = 0
  @Setting var s61 = 0
  @Setting var s62 = 0
  @Setting var s63 = 0
  @Setting var s64 = 0
  @Setting var s65 = 0
  @Setting var s66 = 0
  @Setting var s67 = 0
  @Setting var s68 = 0
  @Setting var s69 = 0
  @Setting var s70 = 0
  @Setting var s71 = 0
  @Setting var s72 = 0
  @Setting var s73 = 0
  @Setting var s74 = 0
  @Setting var s75 = 0
  @Setting var s76 = 0
  @Setting var s77 = 0
  @Setting var s78 = 0
  @Setting var s79 = 0
  @Setting var s80 = 0
  @Setting var s81 = 0
  @Setting var s82 = 0
  @Setting var s83 = 0
  @Setting var s84 = 0
  @Setting var s85 = 0
  @Setting var s86 = 0
  @Setting var s87 = 0
  @Setting var s88 = 0
  @Setting var s89 = 0
  @Setting var s90 = 0
  @Setting var s91 = 0
  @Setting var s92 = 0
  @Setting var s93 = 0
  @Setting var s94 = 0
  @Setting var s95 = 0
  @Setting var s96 = 0
  @Setting var s97 = 0
  @Setting var s98 = 0
  @Setting var s99 = 0

  /// The records of the 100 settings, in declaration order.
  var records: [SettingRecord<Int>] {
    [
      $s00, $s01, $s02, $s03, $s04, $s05, $s06, $s07, $s08, $s09,
      $s10, $s11, $s12, $s13, $s14, $s15, $s16, $s17, $s18, $s19,
      $s20, $s21, $s22, $s23, $s24, $s25, $s26, $s27, $s28, $s29,
      $s30, $s31, $s32, $s33, $s34, $s35, $s36, $s37, $s38, $s39,
      $s40, $s41, $s42, $s43, $s44, $s45, $s46, $s47, $s48, $s49,
      $s50, $s51, $s52, $s53, $s54, $s55, $s56, $s57, $s58, $s59,
      $s60, $s61, $s62, $s63, $s64, $s65, $s66, $s67, $s68, $s69,
      $s70, $s71, $s72, $s73, $s74, $s75, $s76, $s77, $s78, $s79,
      $s80, $s81, $s82, $s83, $s84, $s85, $s86, $s87, $s88, $s89,
      $s90, $s91, $s92, $s93, $s94, $s95, $s96, $s97, $s98, $s99,
    ]
  }
}

/// The groups of the scale rows: any number of ``HundredSettings`` instances, one per section.
enum ScaleGroups {
  /// The most settings a scale row declares.
  static let maximumSettings = 100_000

  /// The section of group `index`: `g0042`.
  static func section(_ index: Int) -> String {
    "g" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index)
  }

  /// `settings / 100` groups bound to `store`.
  static func make(settings: Int, store: SettingsStore) -> [HundredSettings] {
    (0..<settings / 100).map { HundredSettings(store: store, section: section($0)) }
  }
}
