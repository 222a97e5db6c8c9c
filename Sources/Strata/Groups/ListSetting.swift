/// The types a setting holds as a list (see ``AnySettingBox/isList``).
protocol ListSetting {}
extension Array: ListSetting {}
extension ContiguousArray: ListSetting {}
extension Set: ListSetting {}
extension Optional: ListSetting where Wrapped: ListSetting {}
