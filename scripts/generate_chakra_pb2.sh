#!/usr/bin/env bash
# Regenerates python/exanet/traces/chakra/et_def_pb2.py from the vendored Chakra schema
# et_def.proto beside it, with protoc from grpcio-tools 1.82.3 (libprotoc 35.0). That protoc
# writes code for the protobuf 7.35 runtime, hence protobuf>=7.35,<8 in pyproject.toml; a newer
# grpcio-tools may need a newer runtime (the first lines of the generated file say which).
#
# Install the generator first: python3 -m pip install grpcio-tools==1.82.3
# The schema is compiled under its own name, et_def.proto, as Chakra compiles it, so that
# Chakra's own et_def_pb2 and exanet's can be imported in one process (protobuf's default pool
# takes the same file twice only under the same name).
set -euo pipefail
cd "$(dirname "$0")/../python/exanet/traces/chakra"
want=1.82.3
have=$(python3 -c "import importlib.metadata as m; print(m.version('grpcio-tools'))" 2>/dev/null) ||
    { echo "scripts/generate_chakra_pb2.sh: no grpcio-tools: python3 -m pip install grpcio-tools==$want" >&2; exit 1; }
if [ "$have" != "$want" ]; then
    echo "scripts/generate_chakra_pb2.sh: grpcio-tools $have, expected $want" \
        "(python3 -m pip install grpcio-tools==$want)" >&2
    exit 1
fi
python3 -m grpc_tools.protoc --proto_path=. --python_out=. et_def.proto
echo "scripts/generate_chakra_pb2.sh: wrote $(pwd)/et_def_pb2.py"
