extension ScalarConversion {
  /// A ``ByteSize`` from size text (`10MB`, `512KiB`) or a whole number of bytes.
  static func byteSize(_ node: SettingValue, _ site: Site) throws(StrataError) -> ByteSize {
    switch node.kind {
    case .string(let text):
      do {
        return ByteSize(bytes: try ByteSizeText.parse(text))
      } catch .outOfRange {
        throw mismatch(node, site, note: "out of range: at most \(Int.max) bytes", code: .invalidValue)
      } catch .negative {
        throw mismatch(node, site, note: "a size is never negative", code: .invalidValue)
      } catch .notWhole {
        throw mismatch(node, site, note: "not a whole number of bytes", code: .invalidValue)
      } catch .ambiguousUnit {
        throw mismatch(
          node, site,
          note: "a lone K, M or G means 1000ⁿ to some programs and 1024ⁿ to others; "
            + ByteSizeText.forms, code: .invalidValue)
      } catch {
        throw mismatch(node, site, note: ByteSizeText.forms)
      }
    case .integer(let bytes):
      guard bytes >= 0 else {
        throw mismatch(node, site, note: "a size is never negative", code: .invalidValue)
      }
      return ByteSize(bytes: bytes)
    case .unsignedInteger(let bytes):
      guard let bytes = Int(exactly: bytes) else { throw outOfRange(node, site) }
      return ByteSize(bytes: bytes)
    case .double(let bytes) where bytes.isFinite && bytes == bytes.rounded(.towardZero):
      guard bytes >= 0 else {
        throw mismatch(node, site, note: "a size is never negative", code: .invalidValue)
      }
      guard let whole = Int(exactly: bytes) else { throw outOfRange(node, site) }
      return ByteSize(bytes: whole)
    default:
      throw mismatch(node, site, note: ByteSizeText.forms)
    }
  }
}
