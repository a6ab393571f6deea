import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The poll-cost benchmark's S3 copier, run with Java's single-file launcher against the built daemon's class path
 * with a core-site.xml naming the S3 server first on it:
 * {@code java -cp 'conf:api/target/hudi-tsd.jar:api/target/lib/*' bench/CopyToStore.java TEMPLATE ROOT COUNT TARGET}.
 * Copies the local template table COUNT times to ROOT/t0001... and once to TARGET, four copies at a time.
 */
public final class CopyToStore {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: CopyToStore TEMPLATE ROOT COUNT TARGET");
      System.exit(2);
    }
    Configuration conf = new Configuration();
    // The copier only: no deletes of parent directory markers after every file (the daemon keeps S3A's defaults).
    conf.set("fs.s3a.directory.marker.retention", "keep");
    Path template = new Path(args[0]);
    FileSystem local = FileSystem.getLocal(conf);
    List<Path> targets = new ArrayList<>();
    for (int i = 1; i <= Integer.parseInt(args[2]); i++) {
      targets.add(new Path(args[1], String.format("t%04d", i)));
    }
    targets.add(new Path(args[3]));
    ExecutorService threads = Executors.newFixedThreadPool(4);
    List<Future<?>> copies = new ArrayList<>();
    for (Path target : targets) {
      copies.add(threads.submit(() -> FileUtil.copy(local, template, target.getFileSystem(conf), target, false, conf)));
    }
    for (Future<?> copy : copies) {
      copy.get();
    }
    threads.shutdown();
    System.exit(0);
  }
}
