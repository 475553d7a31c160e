#!/usr/bin/env bash
# npm run test:cluster: the store, pipeline and crash/restart tests on a local Redis Cluster.
# Starts 3 masters + 3 replicas from redis-server on loopback (scripts/redis-cluster.ts, temp dir),
# runs vitest.cluster.config.ts against it with STREAMDOCTOR_TEST_REDIS_URL=redis+cluster://…, then the
# failover test (test/cluster/) in a second pass, and always removes the cluster (trap).
set -euo pipefail
cd "$(dirname "$0")/.."

for bin in redis-server redis-cli; do
  command -v "$bin" >/dev/null 2>&1 || { echo "test:cluster needs $bin (apt-get install -y redis-server)" >&2; exit 1; }
done

dir="$(mktemp -d "${TMPDIR:-/tmp}/sd-test-cluster.XXXXXX")"
cleanup() { node bin/run-ts.mjs scripts/redis-cluster.ts stop "$dir" || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting a local Redis Cluster (3 masters + 3 replicas) in $dir"
url="$(node bin/run-ts.mjs scripts/redis-cluster.ts start "$dir")"
echo "== STREAMDOCTOR_TEST_REDIS_URL=$url"
export STREAMDOCTOR_TEST_REDIS_URL="$url"
export STREAMDOCTOR_TEST_CLUSTER_DIR="$dir"

npx vitest run --config vitest.cluster.config.ts --exclude 'test/cluster/**' "$@"
echo "== failover pass"
npx vitest run --config vitest.cluster.config.ts test/cluster
