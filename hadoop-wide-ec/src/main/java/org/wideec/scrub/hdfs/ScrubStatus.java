package org.wideec.scrub.hdfs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.wideec.archive.hdfs.ArchiveLayout;

/**
 * What the continuous scrubber last found, kept in one small JSON file under the archive directory ({@link #path}):
 * where the running pass stands (so a restarted or failed-over NameNode resumes there), when passes ran, and each
 * stripe or block group whose last check was not consistent, with the unit at fault, its holder and whether its
 * repair was requested. A later consistent check of the stripe removes its entry, and a pass that ends drops the
 * entries of stripes it no longer found (one it could not check keeps its entry). Written temp-then-rename, readable by the superuser only (it names paths).
 * {@code wide-ec fsck} prints the entries under its path.
 */
public final class ScrubStatus {
  /** Entries kept at most: the file stays small however broken a cluster is (the oldest go first). */
  static final int MAX_BAD = 10_000;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final FsPermission OWNER_ONLY = new FsPermission((short) 0600);

  /**
   * One stripe or block group whose last check was not consistent.
   *
   * @param path the archived file or directory, or the striped file
   * @param stripe the stripe or group, as the scrub names it
   * @param result the verdict ({@code unit_at_fault [u]}, {@code undecidable [..]})
   * @param node the holder of the unit at fault that folded it, or empty
   * @param repairRequested whether its replicas that disagree were reported corrupt
   * @param pass the pass that found it
   * @param at when, ms since the epoch
   */
  public record Bad(String path, String stripe, String result, String node, boolean repairRequested, long pass,
      long at) {}

  private long pass;
  private long passStarted;
  private long lastPassEnded = -1;
  private String phase = "";
  private long after = -1;
  private final Map<String, Bad> bad = new LinkedHashMap<>();

  /** The status file of the archive layout's directory. */
  public static Path path(ArchiveLayout layout) {
    return new Path(layout.root(), "scrub/status.json");
  }

  /** The status as last written, or an empty one when the scrubber never wrote it. */
  public static ScrubStatus read(DistributedFileSystem fs, ArchiveLayout layout) throws IOException {
    Path p = path(layout);
    try (InputStream in = fs.open(p)) {
      return parse(MAPPER.readTree(in));
    } catch (FileNotFoundException e) {
      return new ScrubStatus();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IOException(p + " is not the scrubber's status (JSON): " + e.getOriginalMessage(), e);
    }
  }

  /** The status a JSON text ({@link #toJson}) holds. */
  static ScrubStatus parse(String json) throws IOException {
    return parse(MAPPER.readTree(json));
  }

  private static ScrubStatus parse(JsonNode j) {
    ScrubStatus s = new ScrubStatus();
    s.pass = j.path("pass").asLong();
    s.passStarted = j.path("passStarted").asLong();
    s.lastPassEnded = j.path("lastPassEnded").asLong(-1);
    s.phase = j.path("phase").asText("");
    s.after = j.path("after").asLong(-1);
    for (JsonNode b : j.path("bad")) {
      Bad e = new Bad(b.path("path").asText(), b.path("stripe").asText(), b.path("result").asText(),
          b.path("node").asText(), b.path("repairRequested").asBoolean(), b.path("pass").asLong(),
          b.path("at").asLong());
      s.bad.put(e.stripe(), e);
    }
    return s;
  }

  /** Writes the status (temp file, then rename over the old one), readable by its owner only. */
  public void write(DistributedFileSystem fs, ArchiveLayout layout) throws IOException {
    Path p = path(layout);
    Path tmp = new Path(p.getParent(), p.getName() + ".tmp");
    fs.mkdirs(p.getParent(), new FsPermission((short) 0700));
    try (OutputStream out = fs.create(tmp, OWNER_ONLY, true, 4096, fs.getDefaultReplication(tmp),
        fs.getDefaultBlockSize(tmp), null)) {
      out.write(toJson().getBytes(StandardCharsets.UTF_8));
    }
    fs.rename(tmp, p, Options.Rename.OVERWRITE);
  }

  String toJson() throws IOException {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("version", 1);
    j.put("pass", pass);
    j.put("passStarted", passStarted);
    j.put("lastPassEnded", lastPassEnded);
    j.put("phase", phase);
    j.put("after", after);
    j.put("bad", new ArrayList<>(bad.values()));
    return MAPPER.writeValueAsString(j);
  }

  /** The pass running or last run (0: none yet). */
  public long pass() {
    return pass;
  }

  public long passStarted() {
    return passStarted;
  }

  /** When the last whole pass ended, ms since the epoch; -1 before the first. */
  public long lastPassEnded() {
    return lastPassEnded;
  }

  /** Whether a pass stopped before its end (a restart, a failover): the next one resumes at {@link #after}. */
  public boolean midPass() {
    return !phase.isEmpty();
  }

  /** The running pass's phase ({@code archived} or {@code striped}; empty between passes). */
  public String phase() {
    return phase;
  }

  /** The last archived or file inode of {@link #phase} the running pass finished. */
  public long after() {
    return after;
  }

  /** Every entry, oldest first. */
  public List<Bad> bad() {
    return List.copyOf(bad.values());
  }

  /** Starts pass {@link #pass} + 1 at the start of the first phase. */
  public void begin(String firstPhase, long now) {
    pass++;
    passStarted = now;
    phase = firstPhase;
    after = -1;
  }

  /** The running pass finished {@code after} (an archived or file inode) of {@code phase}. */
  public void at(String phase, long after) {
    this.phase = phase;
    this.after = after;
  }

  /** The pass ended: entries it did not find again are of stripes that no longer exist. */
  public void end(long now) {
    bad.values().removeIf(b -> b.pass() < pass);
    phase = "";
    after = -1;
    lastPassEnded = now;
  }

  void found(Bad b) {
    bad.remove(b.stripe());
    bad.put(b.stripe(), b);
    while (bad.size() > MAX_BAD) {
      bad.remove(bad.keySet().iterator().next());
    }
  }

  void consistent(String stripe) {
    bad.remove(stripe);
  }

  /** The stripe could not be checked this pass (a unit missing while it is rebuilt, say): its entry stays. */
  void unchecked(String stripe) {
    Bad b = bad.get(stripe);
    if (b != null) {
      bad.put(stripe, new Bad(b.path(), b.stripe(), b.result(), b.node(), b.repairRequested(), pass, b.at()));
    }
  }
}
