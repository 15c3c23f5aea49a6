package org.wideec.placement.hdfs;

import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NameNode plugin ({@code dfs.namenode.plugins}) that gives {@link WideEcBlockPlacementPolicy} access to the
 * namesystem, from which it learns each file's erasure-coding policy.
 */
public final class WideEcNameNodePlugin implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(WideEcNameNodePlugin.class);

  @Override
  public void start(Object service) {
    if (!(service instanceof NameNode nn)) {
      throw new IllegalArgumentException("WideEcNameNodePlugin runs in a NameNode, not in " + service);
    }
    NamespaceAccess.set(nn.getNamesystem());
    LOG.info("wide-ec placement sees the namesystem; block groups of our codecs are placed by plan");
  }

  @Override
  public void stop() {
    NamespaceAccess.set(null);
  }

  @Override
  public void close() {
    stop();
  }
}
