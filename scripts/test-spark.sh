#!/usr/bin/env bash
# npm run test:spark: the listeners and the bot's SQL on real local Spark (test/spark). Makes sure of
# everything it needs first and fails, saying what to install, when a tool is missing (it never skips):
# Java 17+, Maven, Python 3.10+ (the venv from scripts/spark-venv.sh), Node. Then builds the Scala
# listener jar with Maven (offline when the local repository is warm) and runs pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

missing() {
  echo "test:spark cannot run: $1 is missing. Install $2, then run npm run test:spark again." >&2
  exit 1
}

command -v java >/dev/null 2>&1 || missing "Java" "a JDK 17 or newer (Debian: apt-get install -y openjdk-17-jdk-headless)"
java_major="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
[[ -n "$java_major" && "$java_major" -ge 17 ]] || missing "Java 17+ (found ${java_major:-an unknown version})" "a JDK 17 or newer (Debian: apt-get install -y openjdk-17-jdk-headless)"
command -v mvn >/dev/null 2>&1 || missing "Maven" "Maven 3.8+ (Debian: apt-get install -y maven)"
command -v node >/dev/null 2>&1 || missing "Node" "Node 20"
command -v python3 >/dev/null 2>&1 || missing "Python" "Python 3.10+ with venv (Debian: apt-get install -y python3 python3-venv)"

started=$(date +%s)
PY="$(bash scripts/spark-venv.sh)"
# Classic PySpark 3.5 for the listener's job-end test (test/spark/test_5_job_end.py).
STREAMDOCTOR_SPARK35_PYTHON="$(bash scripts/spark-venv.sh 3.5)"
export STREAMDOCTOR_SPARK35_PYTHON

echo "== building the Scala listener (mvn -B -q -f listener/scala/pom.xml package)"
if ! mvn -B -q -Dstyle.color=never -o -f listener/scala/pom.xml package >/tmp/streamdoctor-mvn-offline.log 2>&1; then
  mvn -B -q -Dstyle.color=never -f listener/scala/pom.xml package
fi

echo "== pytest test/spark (classic local Spark, a local Spark Connect server, the Scala listener)"
status=0
(cd test/spark && "$PY" -m pytest -q) || status=$?
echo "== test:spark took $(( $(date +%s) - started )) s"
if [[ $status -eq 5 ]]; then
  echo "test:spark collected no tests: that is a failure" >&2
  exit 1
fi
exit $status
