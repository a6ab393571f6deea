# syntax=docker/dockerfile:1
# The hudi-tsd image: docker build -t hudi-tsd:0.1.0 .   (see README, "Container image and Kubernetes")

# Build stage: the same Maven build as bin/tsd, tests skipped (CI runs them).
FROM maven:3.9-eclipse-temurin-17 AS build
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
RUN --mount=type=cache,target=/root/.m2 mvn -B -ntp -DskipTests package -pl api -am

# Runtime stage: a JRE, the thin jar with its lib/ directory, and the launcher.
FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 tsd \
 && useradd --system --uid 10001 --gid tsd --home-dir /var/lib/tsd --no-create-home --shell /usr/sbin/nologin tsd \
 && mkdir -p /etc/tsd /var/lib/tsd \
 && chown tsd:tsd /var/lib/tsd
# bin/tsd finds the jar at api/target/ beside its own directory.
COPY --from=build /src/api/target/hudi-tsd.jar /opt/hudi-tsd/api/target/hudi-tsd.jar
COPY --from=build /src/api/target/lib/ /opt/hudi-tsd/api/target/lib/
COPY bin/tsd /opt/hudi-tsd/bin/tsd
# The heap follows the container's memory limit. Hadoop's simple authentication needs a user name, which an
# arbitrary UID (OpenShift) would not have.
ENV TSD_JAVA_OPTS="-XX:MaxRAMPercentage=70.0 -XX:+ExitOnOutOfMemoryError" \
    HADOOP_USER_NAME=tsd
USER 10001:10001
WORKDIR /var/lib/tsd
EXPOSE 8080 8081
# The launcher rather than java -jar: with -jar the JVM ignores the class path, and HADOOP_CONF_DIR (core-site.xml,
# hdfs-site.xml) reaches Hadoop only through it. It runs
#   java $TSD_JAVA_OPTS ... -cp "$HADOOP_CONF_DIR:hudi-tsd.jar" io.huditsd.api.TsdApplication server /etc/tsd/tsd.yml
ENTRYPOINT ["/opt/hudi-tsd/bin/tsd"]
CMD ["server", "/etc/tsd/tsd.yml"]
