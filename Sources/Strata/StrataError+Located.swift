/// An error with the position of the node it is about, unless it already has one.
func located(_ error: StrataError, _ origin: Origin) -> StrataError {
  var error = error
  guard error.path == nil else { return error }
  switch origin {
  case .file(let path, let line, let column):
    error.path = path
    error.line = line
    error.column = column
  case .environment, .commandLine, .remote: error.path = origin.description
  case .codeDefault, .runtime: break
  }
  return error
}
