# syntax=docker/dockerfile:1
# The hudi-tsd image: docker build -t hudi-tsd:0.1.0 .   (see docs/operations.md, "Container image and Kubernetes")
# With a Spark client for the Spark engine (spark-submit in the daemon's pod; a few hundred MB more):
#   docker build --build-arg WITH_SPARK=true -t hudi-tsd:0.1.0-spark .
# Off by default because most deployments run every plan in the daemon and the Spark jars would triple the image.
ARG WITH_SPARK=false

# Build stage: the same Maven build as bin/tsd, tests skipped (CI runs them).
FROM maven:3.9-eclipse-temurin-17 AS build
ARG WITH_SPARK
WORKDIR /src
# The reactor reads every module's pom, also of the modules it does not build.
COPY pom.xml ./
# javac's flags for Error Prone (.mvn/jvm.config).
COPY .mvn .mvn
COPY charts-test/pom.xml charts-test/
COPY spark-peer/pom.xml spark-peer/
COPY src-it/pom.xml src-it/
COPY config config
COPY lock-providers lock-providers
COPY executors executors
COPY scheduler scheduler
COPY api api
# The S3 test server's module, whole: small, and a module api builds with (-am) may use it in its tests.
COPY s3mock-server s3mock-server
COPY spark-runner spark-runner
# With Spark, spark-runner's package also assembles a SPARK_HOME from Maven Central's jars (Spark's distribution
# tarball is not fetched): spark-runner/target/spark-home/{bin/spark-submit,jars/,conf/} and the runner jar
# spark-runner/target/hudi-tsd-spark-runner.jar.
RUN --mount=type=cache,target=/root/.m2 if [ "$WITH_SPARK" = true ]; then \
      mvn -B -ntp -DskipTests package -pl api,spark-runner -am; \
    else \
      mvn -B -ntp -DskipTests package -pl api -am; \
    fi

# Runtime stage: a JRE, the thin jar with its lib/ directory, and the launcher.
FROM eclipse-temurin:17-jre AS runtime
RUN groupadd --system --gid 10001 tsd \
 && useradd --system --uid 10001 --gid tsd --home-dir /var/lib/tsd --no-create-home --shell /usr/sbin/nologin tsd \
 && mkdir -p /etc/tsd /var/lib/tsd \
 && chown tsd:tsd /var/lib/tsd
# bin/tsd finds the jar at api/target/ beside its own directory.
COPY --from=build /src/api/target/hudi-tsd.jar /opt/hudi-tsd/api/target/hudi-tsd.jar
COPY --from=build /src/api/target/lib/ /opt/hudi-tsd/api/target/lib/
COPY bin/tsd /opt/hudi-tsd/bin/tsd
# Extra jars the launcher adds after the daemon's own (docs/object-stores.md): whatever the build
# context's lib/ext/ holds (the GCS connector, hadoop-azure, Hudi's hudi-aws bundle...), or add them in an image of
# your own: FROM hudi-tsd:0.1.0 + COPY gcs-connector-hadoop3-2.2.26-shaded.jar /opt/hudi-tsd/lib/ext/. S3 needs none:
# hadoop-aws and the AWS SDK v1 modules it uses are in lib/.
COPY lib/ext/ /opt/hudi-tsd/lib/ext/
# The heap follows the container's memory limit. Hadoop's simple authentication needs a user name, which an
# arbitrary UID (OpenShift) would not have. No class-data-sharing archive (docs/running.md): every fresh pod
# (each CronJob run) would pay for writing one at its first once and lose it with the pod.
ENV TSD_JAVA_OPTS="-XX:MaxRAMPercentage=70.0 -XX:+ExitOnOutOfMemoryError" \
    HADOOP_USER_NAME=tsd \
    TSD_CDS=off

FROM runtime AS spark-false

# The Spark client: the SPARK_HOME the runner module assembles (Spark 3.5.5 and hudi-spark3.5-bundle_2.12:1.2.0 with
# their dependencies, a spark-submit that execs Spark's launcher), and beside hudi-tsd.jar the two jars the spark
# section defaults to (applicationJar: the runner; jars: the lock providers, for the table's lock in the driver).
FROM runtime AS spark-true
COPY --from=build /src/spark-runner/target/spark-home/ /opt/spark/
COPY --from=build /src/spark-runner/target/hudi-tsd-spark-runner.jar /opt/hudi-tsd/api/target/hudi-tsd-spark-runner.jar
COPY --from=build /src/api/target/hudi-tsd-lock-providers.jar /opt/hudi-tsd/api/target/hudi-tsd-lock-providers.jar
ENV SPARK_HOME=/opt/spark \
    SPARK_SCALA_VERSION=2.12

FROM spark-${WITH_SPARK}
USER 10001:10001
WORKDIR /var/lib/tsd
EXPOSE 8080 8081
# The launcher rather than java -jar: with -jar the JVM ignores the class path, and HADOOP_CONF_DIR (core-site.xml,
# hdfs-site.xml) reaches Hadoop only through it. It runs
#   java $TSD_JAVA_OPTS ... -cp "$HADOOP_CONF_DIR:hudi-tsd.jar" io.huditsd.api.TsdApplication server /etc/tsd/tsd.yml
ENTRYPOINT ["/opt/hudi-tsd/bin/tsd"]
CMD ["server", "/etc/tsd/tsd.yml"]
