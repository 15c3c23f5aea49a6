package org.wideec.config;

import java.util.Set;

/**
 * One configuration key under {@code wide-ec.}: the area of the docs it belongs to, the processes that read it, its
 * default as the code applies it, and one line saying what it does. Hadoop's {@code Configuration} carries no
 * documentation of its own for keys outside hdfs-default.xml, so this is where an operator's answer lives
 * (docs/configuration.md is generated from {@link ConfigCatalogue}).
 *
 * @param value the value the code applies when this key and every key it derives from are unset, written as an
 *     operator would set it ({@code 256k}, {@code 10000}, {@code rack_aggregated}); null when nothing applies
 * @param derivation null for a fixed default; else how the default arises ("half of ...") or why there is none
 */
public record ConfigKey(String name, Area area, Set<Role> readBy, String value, String derivation, String doc) {

  /** The processes that read keys; a key is listed under each that reads it. */
  public enum Role {
    NAMENODE("NameNode"),
    DATANODE("DataNode"),
    CLIENT("client"),
    CLI("CLI / archiver"),
    MAPREDUCE("MapReduce job");

    public final String label;

    Role(String label) {
      this.label = label;
    }
  }

  /** The sections of docs/configuration.md, in order. */
  public enum Area {
    PLACEMENT("Placement and the NameNode plugin",
        "Set on the NameNode (placement policy and plugin) unless a key says otherwise."),
    REPAIR("Repair worker", "Set on every DataNode (the worker); the NameNode reads the keys its archive repairs share."),
    TRANSPORT("Slice transport", "The DataNodes' slice port and every process that dials it: the NameNode (rebuild and"
        + " pin orders), code-aware clients and the archiver's chain and RapidRAID encoders."),
    CLIENT("Reads through WideEcFileSystem", "Set in the hdfs-site.xml or core-site.xml of clients that read through"
        + " org.wideec.client.WideEcFileSystem."),
    ARCHIVAL("Archival", "The archiver (`wide-ec archive`, `unarchive`, `status`), its MapReduce job, and the"
        + " NameNode plugin's trimmer, repair monitor, reprotection and placement keeper."),
    CODER("Coders (JVM system properties)", "Hadoop builds a raw coder from the codec name and (k, m) alone, so no"
        + " Configuration reaches it: pass these as -D options in HADOOP_OPTS (or HDFS_DATANODE_OPTS, ...) of every"
        + " process that codes.");

    public final String title;
    public final String intro;

    Area(String title, String intro) {
      this.title = title;
      this.intro = intro;
    }
  }

  public ConfigKey {
    if (!name.startsWith(ConfigKeys.PREFIX) || readBy.isEmpty() || doc.isBlank()) {
      throw new IllegalArgumentException("a key under " + ConfigKeys.PREFIX + " with readers and a doc: " + name);
    }
    if (value == null && derivation == null) {
      throw new IllegalArgumentException(name + ": a default value, or the reason there is none");
    }
    readBy = Set.copyOf(readBy);
  }

  /** The default as the docs print it: the value, how it is derived (and what that gives), or why there is none. */
  public String defaultText() {
    if (derivation == null) {
      return "`" + value + "`";
    }
    return value == null ? derivation : "derived: " + derivation + " (`" + value + "` by default)";
  }
}
