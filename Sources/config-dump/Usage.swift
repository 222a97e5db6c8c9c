import Strata

/// The text of `config-dump --help`; the formats listed are those of the standard registry, which
/// `config-dump` reads with.
let usage = """
  USAGE: config-dump [options] [FILE...]

  Prints the merged effective configuration, with where each value came from.

  Sources (lowest first; later wins per key, tables merge, arrays replace):
    FILE...               files stacked in the order given, each read by its extension:
                          \(extensionList)
                          (.plist: XML or binary; .env and a file named .env: dotenv)
    --input-format F      the format of FILE arguments whose names do not say: \(formatNames)
    --app NAME            the standard layers of app NAME:
                            /usr/lib/NAME/NAME.{\(mainFiles)} and NAME.conf.d/*  (vendor)
                            /etc/NAME/NAME.{\(mainFiles)} and NAME.conf.d/*      (system)
                            $XDG_CONFIG_HOME/NAME/ (default ~/.config/NAME/)            (user)
                            NAME_* environment variables                               (environment)
                          FILE arguments, if any, stack above the user layer.
    --root DIR            resolve every absolute path under DIR (a test tree); with it, the user
                          layer is $XDG_CONFIG_HOME or $HOME/.config when that exists inside
                          DIR, else DIR/home/user/.config/NAME (as SettingsStore(app:root:) does),
                          unless --home is given
    --home DIR            the home directory (inside --root) for the user layer
    --key-per-file DIR    a directory where each file is one key and its content the value (a
                          Kubernetes ConfigMap or Secret volume); secret: redacted unless
                          --show-secrets
    --env-prefix P        the environment prefix (default: NAME upper-cased); with FILE arguments
                          alone, adds a P_* environment layer on top
    --max-file-size N     refuse files larger than N bytes (default 16777216)
    --schema FILE         a JSON Schema exported by the app (SettingsSchema.jsonSchema): values are
                          converted to their declared types (a value that does not convert falls
                          back to the next lower layer), unset keys show their defaults, secrets are
                          redacted, old keys (aliases) read as their settings' keys, and --check
                          reports unknown keys with a "did you mean", old keys as deprecated, and
                          required settings that nothing sets (an error naming the file and variable)
    --show-secrets        print secret values in clear. Secrets are: a schema's secret settings; keys no
                          schema declares whose last name has a word password, passwd, pwd,
                          passphrase, secret(s), token, credential(s), api/private/secret/access/
                          signing/encryption/master key, or ends in auth (words split at camelCase,
                          _, -, .: db_password, apiKey, basicAuth; not keyboard, tokenizer,
                          authMethod); values of --key-per-file directories

  Output:
    --format F            table (default), json, ini, plist, or env (export lines for a shell)
    --show-origin         show where each value came from: file:line:column, env:NAME, default
                          (ini and env: as comments; plist: left out, with a warning)
    --show-shadowed       also show the lower-layer values each key hides (table and json; other
                          formats leave them out, with a warning)
    --no-truncate         print long values whole (on a terminal, the table cuts them with … to fit
                          its width; piped output is never cut)
    --key KEY             print only KEY (a dotted path such as server.port); a table prints as a
                          subtree; with --show-shadowed, a value is followed by one
                          "  shadows VALUE<TAB>ORIGIN" line per value it hides
    --watch               after the dump, keep running and print one JSON line per change
                          {"generation":…, "key":…, "old":…, "new":…, "origin":…} and one per
                          error {"error":…, "path":…, "line":…, "column":…}; secrets redacted;
                          with --schema, a restart-required setting's line ends with
                          "pendingRestart": true (a running program keeps its old value);
                          stop with Ctrl-C (SIGINT) or SIGTERM
    --check               parse everything and print each problem as
                          path:line:column: error|warning: message, and each drop-in skipped for
                          its name as path: note: skipped: why
    -h, --help            show this help

  Exit status:
    0  success
    1  configuration errors (reported on stderr; everything that loaded is still printed)
    2  usage error
    3  --key names a key that does not exist

  Environment variables: a known key server.maxConnections is overridden by
  PREFIX_SERVER_MAX_CONNECTIONS; other PREFIX_ variables map by "__" (PREFIX_DB__POOL_SIZE sets
  db.pool_size) and are reported as unknown by --check.

  """

/// The extensions of the standard registry, as in `.plist .json …`.
private let extensionList = FormatRegistry.standard.allExtensions.map { "." + $0 }.joined(separator: " ")
/// The names of the standard registry's formats, as `--input-format` takes them.
private let formatNames = FormatRegistry.standard.names.joined(separator: ", ")
/// The main-file extensions of the standard registry, as in `NAME.{plist,json,ini,env}`.
private let mainFiles = FormatRegistry.standard.mainFileExtensions.joined(separator: ",")
