import Testing

@testable import Strata

/// The terminal width of text, as the table format aligns it.
@Suite struct DisplayWidthTests {
  @Test(arguments: [
    ("abc", 3), ("", 0), ("東京", 4), ("ｘｙ", 4),  // fullwidth forms
    ("한국어", 6),  // precomposed Hangul
    ("\u{1100}\u{1161}\u{11A8}", 2),  // a conjoining Jamo syllable: the trailing vowel and final take none
    ("カタカナ", 8), ("、。", 4),  // CJK punctuation
    ("e\u{301}", 1), ("a\u{20DD}", 1),  // combining acute, enclosing circle
    ("a\u{200B}b", 2), ("\u{FEFF}x", 1),  // zero-width space, byte order mark
    ("🙂", 2), ("❤\u{FE0F}", 1),  // emoji presentation; a variation selector adds nothing
    ("𠀋", 2),  // CJK Extension B (outside the Basic Multilingual Plane)
    ("Ünïcödé", 7), ("Ωμέγα", 5),  // precomposed Latin and Greek
  ])
  func widthOfText(_ text: String, _ expected: Int) {
    #expect(DisplayWidth.of(text) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
  }

  @Test func truncationNeverSplitsAWideCharacterOrExceedsTheWidth() {
    #expect(DisplayWidth.truncated("abcdef", to: 6) == "abcdef")
    #expect(DisplayWidth.truncated("abcdefg", to: 6) == "abcde…")
    // Three columns left for text: 東 (2) fits, 京 (2) would not.
    #expect(DisplayWidth.truncated("東京都庁", to: 4) == "東…")
    #expect(DisplayWidth.truncated("東京都庁", to: 5) == "東京…")
    // A combining mark stays with its letter when the letter fits.
    #expect(DisplayWidth.truncated("e\u{301}e\u{301}e\u{301}x", to: 3) == "e\u{301}e\u{301}…")
    for width in 1...12 {
      let cut = DisplayWidth.truncated("名前はとても長いです", to: width)
      #expect(DisplayWidth.of(cut) <= width, "\(width): \(cut)")
      #expect(cut.hasSuffix("…"))
    }
  }
}
