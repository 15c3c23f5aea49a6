package org.wideec.archive.mr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.wideec.archive.PlacementKind;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.ManifestStore;

/**
 * The archival MapReduce job (DistCp's and HDFS-RAID DistRaid's shape): the listing is written to a job
 * directory {@code <wide-ec.archive.dir>/jobs/<id>}, the map-only job runs {@link ArchiveMapper} over splits of it
 * made by {@link ArchiveInputFormat}, with speculative execution off (two attempts of one task must never work on one
 * archive), and each unit's result lands in {@code out/} of the job directory.
 */
public final class ArchiveJob {
  private static final Logger LOG = LoggerFactory.getLogger(ArchiveJob.class);
  public static final String CODE_KEY = "wide-ec.archive.mr.code";
  public static final String PLACEMENT_KEY = "wide-ec.archive.mr.placement";
  public static final String ENCODER_KEY = "wide-ec.archive.mr.encoder";
  public static final String TRIM_KEY = "wide-ec.archive.mr.trim";
  public static final String LISTING_KEY = "wide-ec.archive.mr.listing";
  /** Map tasks when {@code --maps} is not given. */
  public static final String MAPS_KEY = "wide-ec.archive.mr.maps";
  public static final int MAPS_DEFAULT = 20;
  /** Fault injection for tests: an {@code Archiver.Hook} class each mapper calls after every manifest write. */
  public static final String HOOK_KEY = "wide-ec.archive.mr.hook.class";
  private static final String HOLDER_PREFIX = "mr ";

  private ArchiveJob() {
  }

  /** The directory of a new job: {@code <wide-ec.archive.dir>/jobs/archive-<time>-<random>}. */
  public static Path newJobDir(ArchiveLayout layout) {
    String id = "archive-" + System.currentTimeMillis() + "-"
        + Long.toHexString(new java.security.SecureRandom().nextLong() & 0xffffffL);
    return new Path(new Path(layout.manifestDir().getParent(), "jobs"), id);
  }

  /** Writes the listing into {@code jobDir} and makes the job (not yet submitted). */
  public static Job create(Configuration base, DistributedFileSystem dfs, Path jobDir, List<ArchiveItem> items,
      String codeSpec, PlacementKind placement, String encoder, boolean trim, int maps) throws IOException {
    dfs.mkdirs(jobDir);
    Path listing = new Path(jobDir, "listing.seq");
    ArchiveListing.write(dfs, listing, items);
    Configuration conf = new Configuration(base);
    conf.set(CODE_KEY, codeSpec);
    conf.set(PLACEMENT_KEY, placement.label());
    conf.set(ENCODER_KEY, encoder);
    conf.setBoolean(TRIM_KEY, trim);
    conf.set(LISTING_KEY, dfs.makeQualified(listing).toString());
    conf.setInt("mapreduce.job.maps", maps);
    conf.setBoolean("mapreduce.map.speculative", false);
    Job job = Job.getInstance(conf, "wide-ec archive " + items.size() + " path(s) with " + codeSpec + " ("
        + encoder + ")");
    job.setJarByClass(ArchiveMapper.class);
    job.setInputFormatClass(ArchiveInputFormat.class);
    job.setMapperClass(ArchiveMapper.class);
    job.setNumReduceTasks(0);
    job.setSpeculativeExecution(false);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, new Path(jobDir, "out"));
    return job;
  }

  /** Each unit's result line ({@code DONE}, {@code SKIPPED ...}, {@code FAILED: ...}) from a job's output, by path. */
  public static Map<String, String> results(DistributedFileSystem dfs, Path jobDir) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    Path dir = new Path(jobDir, "out");
    if (!dfs.exists(dir)) {
      return out;
    }
    for (FileStatus st : dfs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      try (SequenceFile.Reader r = new SequenceFile.Reader(dfs.getConf(), SequenceFile.Reader.file(st.getPath()))) {
        Text k = new Text();
        Text v = new Text();
        while (r.next(k, v)) {
          out.put(k.toString(), v.toString());
        }
      }
    }
    return out;
  }

  /** What a map task attempt writes into the archive locks it holds. */
  static String holder(TaskAttemptID attempt) {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      host = "unknown-host";
    }
    return HOLDER_PREFIX + attempt + " on " + host + " " + ProcessHandle.current().pid();
  }

  /** The task attempt a lock holder line names, or null when a map task of ours did not write it. */
  static TaskAttemptID attemptOf(String holder) {
    if (holder == null || !holder.startsWith(HOLDER_PREFIX)) {
      return null;
    }
    String[] words = holder.substring(HOLDER_PREFIX.length()).split(" ");
    try {
      return TaskAttemptID.forName(words[0]);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Before a rerun: releases each listed unit's lock that a task of an archival job that has ended still holds (a
   * killed job's task that died without closing it). A lock of a running job, of a plain {@code archive} run, or of
   * a job the cluster cannot tell about is left alone. Returns one line per lock released.
   */
  public static List<String> releaseLocksOfEndedJobs(Configuration conf, ManifestStore store, List<Path> paths)
      throws IOException {
    List<String> released = new ArrayList<>();
    Cluster cluster = null;
    try {
      for (Path p : paths) {
        long inode = store.inodeOf(p);
        TaskAttemptID held = attemptOf(store.lockHolder(inode));
        if (held == null) {
          continue;
        }
        JobID job = held.getJobID();
        cluster = cluster == null ? new Cluster(conf) : cluster;
        boolean ended;
        try {
          org.apache.hadoop.mapreduce.Job j = cluster.getJob(job);
          ended = j == null || j.isComplete();
        } catch (IOException | InterruptedException e) {
          if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          LOG.warn("cannot tell whether {} (holding {}) has ended: {}", job, store.lockPath(inode), e.getMessage());
          continue;
        }
        if (ended && store.releaseDeadHolder(inode, ArchiveMapper.RELEASE_WAIT_MS)) {
          released.add(p + ": released the lock " + store.lockPath(inode) + " of " + held + " (job " + job
              + " has ended)");
        }
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
    return released;
  }
}
