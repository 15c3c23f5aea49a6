package org.wideec.client;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.net.DNSToSwitchMapping;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.ScriptBasedMapping;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * The rack of a host that talks to slice ports without being a DataNode (a reader, the archiver), resolved as HDFS's
 * client resolves its own (ClientContext): the configured topology mapping. It decides which hops of a chain cross
 * racks, and that the asker's rack comes last.
 */
public final class ClientRack {
  private ClientRack() {}

  /** The host's rack, or the default rack when the mapping cannot tell. */
  public static String of(Configuration conf, String host) {
    try {
      DNSToSwitchMapping mapping = ReflectionUtils.newInstance(conf.getClass(
          CommonConfigurationKeysPublic.NET_TOPOLOGY_NODE_SWITCH_MAPPING_IMPL_KEY, ScriptBasedMapping.class,
          DNSToSwitchMapping.class), conf);
      List<String> racks = mapping.resolve(List.of(host));
      return racks == null || racks.isEmpty() || racks.get(0) == null ? NetworkTopology.DEFAULT_RACK : racks.get(0);
    } catch (RuntimeException e) {
      return NetworkTopology.DEFAULT_RACK;
    }
  }
}
