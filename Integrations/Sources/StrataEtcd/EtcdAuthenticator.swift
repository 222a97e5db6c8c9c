import Synchronization

/// The token an ``EtcdCredentials`` user's requests carry: asked for once, kept until etcd refuses it
/// (it expired, or the member restarted), then asked for again.
final class EtcdAuthenticator: Sendable {
  let credentials: EtcdCredentials
  /// The token kept (`nil`: none yet, or refused), and how many were asked for.
  private let token: Mutex<(value: String?, count: Int)>

  init(_ credentials: EtcdCredentials) {
    self.credentials = credentials
    token = Mutex((nil, 0))
  }

  /// How many tokens were asked for.
  var count: Int { token.withLock { $0.count } }

  /// The token to send: the one kept, or a new one from `authenticate` (a request to the member at
  /// hand). Two requests that find none may both ask; either token works.
  func current(authenticate: () async throws -> String) async throws -> String {
    if let kept = token.withLock({ $0.value }) { return kept }
    let fresh = try await authenticate()
    token.withLock {
      $0.value = fresh
      $0.count += 1
    }
    return fresh
  }

  /// etcd refused `refused`: the next request asks for a new token (unless another already did).
  func invalidate(_ refused: String) {
    token.withLock { if $0.value == refused { $0.value = nil } }
  }

  /// Forgets the token, whichever it is (a watch that etcd cancelled for its token).
  func invalidate() {
    token.withLock { $0.value = nil }
  }
}
