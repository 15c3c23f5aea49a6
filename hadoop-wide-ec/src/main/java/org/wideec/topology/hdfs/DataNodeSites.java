package org.wideec.topology.hdfs;

import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.wideec.topology.Site;

/**
 * A DataNode as the model names it: its transfer address (how the NameNode and block locations name a node) and
 * its network location (the rack the NameNode's topology gives it).
 */
public final class DataNodeSites {
  private DataNodeSites() {}

  public static Site of(DatanodeInfo d) {
    return new Site(d.getXferAddr(), d.getNetworkLocation());
  }
}
