import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Keys named like secrets stay hidden without a schema, in `--watch` lines too.
@Suite struct NamedSecretTests {
  @Test(arguments: [
    "db.password", "DB_PASSWORD", "smtp.passwd", "mysql.pwd", "gpg.passphrase", "client_secret",
    "oauth.clientSecret", "app.secrets", "adminToken", "x-auth-token", "gcp.credentials", "credential",
    "api_key", "apiKey", "APIKey", "API-KEY", "apikey", "stripe.privateKey", "PRIVATE_KEY",
    "aws.secret_access_key", "secretKey", "jwt.signing_key", "encryptionKey", "masterKey", "_auth",
    "basicAuth", "proxy.auth", "vault.credentials.token", "\"a.b\".password",
  ])
  func secretNames(_ key: String) {
    #expect(SecretNames.isSecret(key: key))
  }

  @Test(arguments: [
    "keyboard", "monkey", "tls.keyFile", "ssl_key_path_dir", "sort_key", "primaryKey", "key", "keys",
    "nlp.tokenizer", "max_tokens", "authMethod", "auth_enabled", "oauth.enabled", "author", "passwordless",
    "secretary", "user", "db.host", "password.minLength", "pin",
  ])
  func ordinaryNames(_ key: String) {
    #expect(!SecretNames.isSecret(key: key))
  }

  @Test func watchLinesRedactNamedSecretsThatChangeOrGo() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/app.json"
      try write(#"{"db": {"password": "first-pw-1", "user": "app"}}"#, to: file)
      let watch = try ChildProcess(configDumpPath, [file, "--watch"])
      #expect(await watch.line(startingWith: "db.password") != nil, "\(watch.transcript)")
      try replaceFile(file, with: #"{"db": {"password": "second-pw-2", "user": "app"}}"#)
      let changed = await watch.line(startingWith: "{\"generation\"")
      #expect(changed?.contains(#""key": "db.password", "old": "<redacted>", "new": "<redacted>""#) == true)
      try replaceFile(file, with: #"{"db": {"user": "app2"}}"#)
      var lines: [String] = []
      for _ in 0..<2 {
        if let line = await watch.line(startingWith: "{\"generation\"") { lines.append(line) }
      }
      #expect(
        lines.contains { $0.contains(#""key": "db.password", "old": "<redacted>", "new": null"#) },
        "\(watch.transcript)")
      #expect(lines.contains { $0.contains(#""key": "db.user", "old": "app", "new": "app2""#) })
      watch.send(SIGTERM)
      let ending = await watch.finish(within: 60).ending
      #expect(ending == .exited(0))
      for secret in ["first-pw-1", "second-pw-2"] {
        #expect(!watch.transcript.contains(secret), "\(watch.transcript)")
      }
      // --show-secrets shows them.
      let shown = try await runConfigDump([file, "--show-secrets"])
      #expect(!shown.output.contains("<redacted>"))
    }
  }

  @Test func aStringThatStartsWithAQuoteIsQuotedAndOthersAreShownAsTheyAre() async throws {
    try await withTemporaryDirectory { dir in
      try write(
        #"{"a": "\"hi\" she said", "b": "say \"hi\"", "c": "back\\slash ", "d\nx": "v", "e": ["", " a", "b"]}"#,
        to: dir + "/app.json")
      let run = try await runConfigDump([dir + "/app.json"])
      #expect(run.status == 0, "\(run.errors)")
      let lines = run.output.split(separator: "\n").map(String.init)
      #expect(lines.contains { $0.hasPrefix("a ") && $0.hasSuffix(#""\"hi\" she said""#) }, "\(run.output)")
      #expect(lines.contains { $0.hasPrefix("b ") && $0.hasSuffix(#"say "hi""#) }, "\(run.output)")
      #expect(lines.contains { $0.hasPrefix("c ") && $0.hasSuffix(#""back\\slash ""#) }, "\(run.output)")
      // A key holding a newline stays on its row.
      #expect(lines.contains { $0.hasPrefix(#"d\nx "#) && $0.hasSuffix("v") }, "\(run.output)")
      #expect(lines.contains { $0.hasPrefix("e ") && $0.hasSuffix(#"["", " a", b]"#) }, "\(run.output)")
      #expect(lines.count == 6)
    }
  }

  @Test(.linuxOnly("/dev/ptmx and its ioctls"))
  func onATerminalLongValuesAreCutToItsWidthUnlessNoTruncate() async throws {
    try await withTemporaryDirectory { dir in
      let long = String(repeating: "名", count: 60) + "END"
      try write(#"{"k": "\#(long)", "short": "s"}"#, to: dir + "/app.json")
      let cut = try await runOnTerminal([dir + "/app.json"], columns: 40)
      #expect(cut.status == 0, "\(cut.output)")
      let lines = cut.output.split(separator: "\n").map(String.init)
      #expect(lines.count == 3, "\(cut.output)")
      #expect(lines.allSatisfy { DisplayWidth.of($0) <= 40 }, "\(cut.output)")
      #expect(lines.contains { $0.hasPrefix("k ") && $0.hasSuffix("…") }, "\(cut.output)")
      #expect(!cut.output.contains("END"))
      let whole = try await runOnTerminal([dir + "/app.json", "--no-truncate"], columns: 40)
      #expect(whole.output.contains(long), "\(whole.output)")
      // With no size on the terminal, $COLUMNS says the width.
      let byVariable = try await runOnTerminal(
        [dir + "/app.json"], columns: 0, environment: ["COLUMNS": "30"])
      #expect(
        byVariable.output.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 30 },
        "\(byVariable.output)")
      #expect(byVariable.output.contains("…"))
    }
  }

  /// Runs `config-dump` with its stdout and stderr on a pseudo-terminal `columns` wide (0: no size set).
  private func runOnTerminal(_ arguments: [String], columns: UInt16, environment: [String: String] = [:])
    async throws -> (status: Int32, output: String)
  {
    let (master, slave) = try openTerminal(columns: columns)
    defer { close(master) }
    let pid: pid_t
    do {
      pid = try Spawn.start(
        configDumpPath, arguments, environment: Spawn.defaultEnvironment.merging(environment) { a, _ in a },
        output: slave, errors: slave)
    } catch {
      close(slave)
      throw error
    }
    close(slave)
    let exit = ProcessExit(pid)
    // Read until the terminal closes (every copy of the slave gone: EIO), with a deadline, on a thread
    // of its own.
    let output = await onOwnThread { () -> String in
      var bytes: [UInt8] = []
      let deadline = Date().addingTimeInterval(120)
      var chunk = [UInt8](repeating: 0, count: 4096)
      while Date() < deadline {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 200) >= 0 || errno == EINTR else { break }
        if poller.revents == 0 { continue }
        let count = read(master, &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
      }
      return String(decoding: bytes, as: UTF8.self).replacing("\r\n", with: "\n")
    }
    // The child is done writing (or the deadline passed): it ends now, or is killed; then it is reaped.
    let status = await exit.reap(killingAfter: 120)
    return (status.shellStatus, output)
  }

  /// A pseudo-terminal `columns` wide (0: no size set): its master and slave descriptors.
  private func openTerminal(columns: UInt16) throws -> (master: Int32, slave: Int32) {
    #if os(Linux)
      // posix_openpt, unlockpt and ptsname, as Linux does them (Glibc's module does not export them).
      let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
      try #require(master >= 0)
      var unlock: Int32 = 0
      var number: UInt32 = 0
      guard ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
        ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
      else {
        close(master)
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
      let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
      guard slave >= 0 else {
        close(master)
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
      var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
      _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
      return (master, slave)
    #else
      throw POSIXError(.ENOTSUP)  // the tests that call this run on Linux only
    #endif
  }
}

/// With a schema, its declarations decide for the keys it declares; a key it does not know is still
/// hidden by its name.
@Suite struct NamedSecretWithSchemaTests {
  @Test func anUndeclaredSecretNamedKeyStaysHiddenWithASchema() async throws {
    try await withTemporaryDirectory { dir in
      try write(
        #"{"server": {"port": 8080, "adminPassword": "undeclared-pw-1"}, "db": {"token": "undeclared-t-2"}}"#,
        to: dir + "/app.json")
      let schema = repositoryRoot + "/Samples/demo/demo.schema.json"
      var seen = ""
      // (Not ini: the demo schema's default for server.allowed_origins is an empty array, which INI
      // cannot write.)
      for format in ["table", "json", "plist", "env"] {
        let run = try await runConfigDump([
          dir + "/app.json", "--schema", schema, "--format", format, "--env-prefix", "APP",
        ])
        #expect(run.status == 0, "\(run.errors)")
        seen += run.output + run.errors
      }
      seen += try await runConfigDump([dir + "/app.json", "--schema", schema, "--key", "db.token"]).output
      seen += try await runConfigDump([dir + "/app.json", "--schema", schema, "--check"]).output
      #expect(!seen.contains("undeclared-pw-1") && !seen.contains("undeclared-t-2"), "\(seen)")
      #expect(seen.contains("8080"))
      let shown = try await runConfigDump([
        dir + "/app.json", "--schema", schema, "--key", "db.token", "--show-secrets",
      ])
      #expect(shown.output == "undeclared-t-2\n")
    }
  }
}

/// The secret-name rule looks at the last word of the last name only, so that names about a secret
/// that hold none are shown.
@Suite struct LastWordSecretNameTests {
  /// Real names of real files (samba's smb.conf, sssd.conf, nsswitch.conf, the shell's PWD) that hold
  /// no secret.
  @Test(arguments: [
    "global.unix password sync", "global.passwd program", "global.pam password change", "global.passwd chat",
    "domain/example.passwd_files", "domain/example.ldap_pwd_policy", "passwd", "pwd", "PWD", "shadow",
    "password_hash_algorithm", "token_ttl", "max_tokens", "auth_method", "api_key_file", "secret_key_path",
  ])
  func namesAboutSecretsAreShown(_ key: String) {
    #expect(!SecretNames.isSecret(key: key))
  }

  /// Their secret counterparts, and the names the rule was written for.
  @Test(arguments: [
    "db_password", "apiKey", "mysqld.wsrep_sst_auth", "aws_secret_access_key", "global.smb passwd",
    "domain/example.ldap_default_authtok_password", "ldap.bind_pwd", "smtp.passwd", "db_pwd", "mysql.pwd",
    "unix password",
  ])
  func secretLastWordsAreRedacted(_ key: String) {
    #expect(SecretNames.isSecret(key: key))
  }

  @Test func smbConfIsShownButForItsPasswordAndEnvOutputWarnsOfPlaceholders() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/smb.ini"
      try write(
        "[global]\nunix password sync = yes\npasswd program = /usr/bin/passwd %u\nsmb passwd = pw-42\n",
        to: file)
      let table = try await runConfigDump([file])
      #expect(table.output.contains("global.unix password sync  yes"), "\(table.output)")
      #expect(table.output.contains("/usr/bin/passwd %u"))
      #expect(!table.output.contains("pw-42") && table.output.contains("<redacted>"))
      let env = try await runConfigDump([file, "--format", "env", "--env-prefix", "SMB"])
      #expect(env.status == 0)
      #expect(env.output.contains("export SMB_GLOBAL_SMB_PASSWD='<redacted>'"), "\(env.output)")
      #expect(
        env.errors.contains(
          "config-dump: warning: --format env: 1 variable is exported as '<redacted>' because its value is "
            + "secret: SMB_GLOBAL_SMB_PASSWD"), "\(env.errors)")
      #expect(env.errors.contains("--show-secrets"))
      // Nothing redacted, nothing to warn of; --show-secrets exports the value.
      let shown = try await runConfigDump([file, "--format", "env", "--env-prefix", "SMB", "--show-secrets"])
      #expect(shown.errors.isEmpty && shown.output.contains("pw-42"))
      let one = try await runConfigDump([
        file, "--format", "env", "--env-prefix", "SMB", "--key", "global.passwd program",
      ])
      #expect(one.errors.isEmpty, "\(one.errors)")
    }
  }
}
