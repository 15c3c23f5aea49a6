package org.wideec.placement.hdfs;

import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;

/**
 * The running NameNode's namesystem, handed over by {@link WideEcNameNodePlugin}, so the placement policy
 * can learn a file's EC policy. Null until the plugin has started (the policy then behaves stock).
 */
public final class NamespaceAccess {
  private static volatile FSNamesystem namesystem;

  private NamespaceAccess() {}

  static void set(FSNamesystem fsn) {
    namesystem = fsn;
  }

  public static FSNamesystem get() {
    return namesystem;
  }
}
