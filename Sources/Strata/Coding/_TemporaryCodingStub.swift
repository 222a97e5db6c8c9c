// TEMPORARY: replaced when the coding branch merges. Not committed.
import FoundationEssentials

public struct SettingDecoder {
  public init() {}
  public func decode<T: Decodable>(_ type: T.Type, from value: SettingValue, key: String) throws(StrataError)
    -> T
  {
    switch value.kind {
    case .integer(let i): if let v = i as? T { return v }
    case .string(let s):
      if let v = s as? T { return v }
      if T.self == Int.self, let i = Int(s) { return i as! T }
    case .bool(let b): if let v = b as? T { return v }
    default: break
    }
    throw StrataError(.typeMismatch, "expected \(T.self) for \(key), found \(value)")
  }
}
public struct SettingEncoder {
  public init() {}
  public func encode<T: Encodable>(_ value: T, origin: Origin = .runtime) throws(StrataError) -> SettingValue?
  {
    if let i = value as? Int { return SettingValue(.integer(i), origin: origin) }
    if let s = value as? String { return SettingValue(.string(s), origin: origin) }
    if let b = value as? Bool { return SettingValue(.bool(b), origin: origin) }
    throw StrataError(.typeMismatch, "cannot encode")
  }
}
