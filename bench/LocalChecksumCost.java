import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * What Hadoop's checksummed local file system costs a copy: reads every {@code .parquet} file of DIR whole and
 * writes them one after the other into one file in OUT_DIR, with the reads and the writes each through the
 * checksummed file system ({@code .crc} files) or the raw one, four rounds of the four combinations; prints wall and
 * thread CPU milliseconds. Run with Java's single-file launcher on the built daemon's class path:
 * {@code java -Dlogback.configurationFile=bench/logback-quiet.xml -cp 'api/target/hudi-tsd.jar:api/target/lib/*'
 * bench/LocalChecksumCost.java DIR OUT_DIR} (docs/benchmarks.md, "Binary copy as a whole once").
 */
public final class LocalChecksumCost {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: LocalChecksumCost DIR OUT_DIR");
    }
    LocalFileSystem checksummed = FileSystem.getLocal(new Configuration());
    FileSystem raw = checksummed.getRawFileSystem();
    List<Path> files = new ArrayList<>();
    for (FileStatus status : checksummed.listStatus(new Path(args[0]))) {
      if (status.getPath().getName().endsWith(".parquet")) {
        files.add(status.getPath());
      }
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    byte[] buffer = new byte[0];
    for (int round = 0; round < 4; round++) {
      for (boolean rawRead : new boolean[] {false, true}) {
        for (boolean rawWrite : new boolean[] {false, true}) {
          FileSystem in = rawRead ? raw : checksummed;
          FileSystem out = rawWrite ? raw : checksummed;
          String mode = (rawRead ? "raw" : "crc") + "-read+" + (rawWrite ? "raw" : "crc") + "-write";
          Path target = new Path(args[1], "checksum-cost-" + mode + ".bin");
          long wall = System.nanoTime();
          long cpu = threads.getCurrentThreadCpuTime();
          long bytes = 0;
          try (FSDataOutputStream output = out.create(target, true)) {
            for (Path file : files) {
              int length = (int) in.getFileStatus(file).getLen();
              if (buffer.length < length) {
                buffer = new byte[length];
              }
              try (FSDataInputStream input = in.open(file)) {
                input.readFully(0, buffer, 0, length);
              }
              output.write(buffer, 0, length);
              bytes += length;
            }
          }
          System.out.printf("round %d %-18s %d MiB wall %d ms cpu %d ms%n", round, mode, bytes >> 20,
              (System.nanoTime() - wall) / 1_000_000, (threads.getCurrentThreadCpuTime() - cpu) / 1_000_000);
          checksummed.delete(target, false);
        }
      }
    }
  }
}
