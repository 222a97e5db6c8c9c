#!/bin/sh
# Builds the config-dump a user installs: on Linux one static executable (the Swift runtime, Foundation
# Essentials and glibc linked in: nothing to load at start, so `config-dump --key` answers about as fast
# as `git config --get`); elsewhere an ordinary release build. Prints the binary's path as its last line.
#   Scripts/build-release.sh && install -m 755 "$(Scripts/build-release.sh | tail -1)" /usr/local/bin/
# glibc warns at link time that getpwuid_r, getpwnam_r, getgrgid_r and dlopen in a static program need
# the shared libraries of the glibc it was linked with at run time: Foundation Essentials links them,
# config-dump never calls them (it reads $HOME from the environment and looks up no user or group names).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
scratch="$root/.build-static"
if [ "$(uname -s)" = Linux ]; then
  swift build -c release --package-path "$root" --scratch-path "$scratch" --product config-dump \
    -Xswiftc -static-executable >&2
else
  swift build -c release --package-path "$root" --scratch-path "$scratch" --product config-dump >&2
fi
echo "$scratch/release/config-dump"
