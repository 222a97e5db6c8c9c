#!/usr/bin/env bash
# Regenerates the etcd source's gRPC messages and client stubs
# (Integrations/Sources/StrataEtcd/GRPC/Generated) from the trimmed protos in Integrations/Protos/etcd.
#
# Needs protoc (Debian's protobuf-compiler) and the two plugins, protoc-gen-swift (apple/swift-protobuf)
# and protoc-gen-grpc-swift-2 (grpc/grpc-swift-protobuf). Building the plugins takes ~10 minutes, so
# they are built once outside the repository (PLUGIN_DIR, default /var/tmp/strata-grpc-plugins) at the
# versions Integrations/Package.swift resolves, and reused. The generated files are committed; CI does
# not run this script.
set -euo pipefail
cd "$(dirname "$0")/.."

GRPC_SWIFT_PROTOBUF_VERSION="${GRPC_SWIFT_PROTOBUF_VERSION:-2.4.1}"
PLUGIN_DIR="${PLUGIN_DIR:-/var/tmp/strata-grpc-plugins}"
PROTOS=Integrations/Protos/etcd
OUT=Integrations/Sources/StrataEtcd/GRPC/Generated

command -v protoc >/dev/null || { echo "error: protoc is missing (apt-get install protobuf-compiler)" >&2; exit 1; }

bin="$PLUGIN_DIR/grpc-swift-protobuf/.build/release"
if [ ! -x "$bin/protoc-gen-grpc-swift-2" ] || [ ! -x "$bin/protoc-gen-swift" ]; then
  mkdir -p "$PLUGIN_DIR"
  if [ ! -d "$PLUGIN_DIR/grpc-swift-protobuf" ]; then
    git clone -q https://github.com/grpc/grpc-swift-protobuf "$PLUGIN_DIR/grpc-swift-protobuf"
  fi
  git -C "$PLUGIN_DIR/grpc-swift-protobuf" checkout -q "$GRPC_SWIFT_PROTOBUF_VERSION"
  swift build -c release --package-path "$PLUGIN_DIR/grpc-swift-protobuf" --product protoc-gen-grpc-swift-2
  swift build -c release --package-path "$PLUGIN_DIR/grpc-swift-protobuf" --product protoc-gen-swift
fi

mkdir -p "$OUT"
rm -f "$OUT"/*.swift
protoc --proto_path="$PROTOS" \
  --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
  --swift_out="$OUT" --swift_opt=Visibility=Internal \
  --plugin=protoc-gen-grpc-swift-2="$bin/protoc-gen-grpc-swift-2" \
  --grpc-swift-2_out="$OUT" --grpc-swift-2_opt=Visibility=Internal,Server=false,Client=true \
  "$PROTOS"/kv.proto "$PROTOS"/rpc.proto
ls "$OUT"
