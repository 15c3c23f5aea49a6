package org.wideec.datanode;

/**
 * How a DataNode's slice service is found: {@code Hadoop:service=DataNode,name=WideEcTransport-<transfer port>}
 * on the DataNode's /jmx page, so other DataNodes and tools discover it from what the NameNode already
 * publishes (address and info port).
 */
public interface SliceEndpointMXBean {
  int getSlicePort();

  String getAuthentication();

  boolean isShaping();
}
