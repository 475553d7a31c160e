"""A local single-node Kafka (KRaft) for the real-Spark trace recorder, from jars Maven resolves
(test/spark/kafka/broker/pom.xml, connector/pom.xml): loopback only, its own data directory, stopped with the recorder. Also the
steady-rate producer (Kafka's own ProducerPerformance) and the Spark conf that puts the Kafka connector
on a session's classpath."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import sparkhelpers as h

WORK = h.REPO / "test" / "spark" / ".work" / "kafka"
POMS = h.REPO / "test" / "spark" / "kafka"
# Spark's Kafka connector and what it needs beyond Spark's own jars.
CONNECTOR = ("spark-sql-kafka-0-10_2.13-", "spark-token-provider-kafka-0-10_2.13-", "kafka-clients-", "commons-pool2-")


def resolve_jars(which):
    """The folder of jars `which` ("broker" or "connector") needs, copied there by Maven on first use."""
    folder = WORK / which
    if folder.is_dir() and any(folder.glob("*.jar")):
        return folder
    result = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POMS / which / "pom.xml"), "dependency:copy-dependencies", f"-DoutputDirectory={folder}", "-DincludeScope=runtime"],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"mvn could not resolve the Kafka {which} jars (install Maven and reach Maven Central):\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return folder


def spark_conf():
    """`spark.jars` with the Kafka connector (a session started with it reads format("kafka"))."""
    jars = sorted(str(p) for p in resolve_jars("connector").glob("*.jar") if p.name.startswith(CONNECTOR))
    if len(jars) != len(CONNECTOR):
        raise RuntimeError(f"the Kafka connector jars are incomplete in {WORK / 'connector'}: {jars}")
    return {"spark.jars": ",".join(jars)}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KafkaBroker:
    """One KRaft node (broker and controller) on ephemeral loopback ports; stop() ends it."""

    def __init__(self, workdir):
        self.workdir = h.fresh_dir(workdir)
        self.producers = []
        self.jars = resolve_jars("broker")
        self.port = free_port()
        controller = free_port()
        data = self.workdir / "data"
        (self.workdir / "server.properties").write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.voters=1@127.0.0.1:{controller}",
                    f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{controller}",
                    f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                    "controller.listener.names=CONTROLLER",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    f"log.dirs={data}",
                    "offsets.topic.replication.factor=1",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                ]
            )
            + "\n"
        )
        (self.workdir / "log4j.properties").write_text(
            "log4j.rootLogger=WARN, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
            "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\nlog4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
        )
        cluster = self._tool("kafka.tools.StorageTool", "random-uuid").strip().splitlines()[-1]
        self._tool("kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(self.workdir / "server.properties"), "--standalone")
        self._log = open(self.workdir / "broker.log", "wb")
        self.process = subprocess.Popen(
            self._java("kafka.Kafka", str(self.workdir / "server.properties")), stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            h.wait_until(self._ready, 60, f"the Kafka broker on 127.0.0.1:{self.port} (log: {self.workdir / 'broker.log'})", step_s=0.5)
        except BaseException:
            self.stop()
            raise

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def _java(self, main, *args, heap="512m"):
        return ["java", f"-Xmx{heap}", "-cp", f"{self.jars}/*", f"-Dlog4j.configuration=file:{self.workdir / 'log4j.properties'}", main, *args]

    def _tool(self, main, *args):
        result = subprocess.run(self._java(main, *args, heap="256m"), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{main} {' '.join(args)} failed: {result.stderr[-2000:]}")
        return result.stdout

    def _ready(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"the Kafka broker exited ({self.process.returncode}); see {self.workdir / 'broker.log'}")
        try:
            self._tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", self.bootstrap, "--list")
            return True
        except RuntimeError:
            return False

    def create_topic(self, topic, partitions):
        self._tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server", self.bootstrap, "--create", "--topic", topic, "--partitions", str(partitions))

    def produce(self, topic, records_per_second, seconds, record_bytes=100):
        """Starts a producer sending `records_per_second` for `seconds` (Kafka's ProducerPerformance,
        throttled); returns its process, which stop() ends if it still runs."""
        producer = subprocess.Popen(
            self._java(
                "org.apache.kafka.tools.ProducerPerformance",
                "--topic", topic,
                "--num-records", str(int(records_per_second * seconds)),
                "--record-size", str(record_bytes),
                "--throughput", str(records_per_second),
                "--producer-props", f"bootstrap.servers={self.bootstrap}", "linger.ms=0",
                heap="256m",
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.producers.append(producer)
        return producer

    def stop(self):
        """Ends the producers still running, then the broker."""
        for producer in self.producers:
            if producer.poll() is None:
                producer.kill()
                producer.wait()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log.close()
