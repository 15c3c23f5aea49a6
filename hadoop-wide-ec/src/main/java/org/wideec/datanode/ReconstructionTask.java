package org.wideec.datanode;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.BitSet;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ErasureCodingPolicy;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;

/**
 * A NameNode reconstruction task as HDFS's StripedBlockReconstructor holds it, read out of that object (HDFS
 * builds it inside the final ErasureCodingWorker and offers no other way in). Every field is looked up once
 * when the takeover is installed, so a Hadoop version that renamed one is detected there, not mid-repair.
 */
record ReconstructionTask(ExtendedBlock blockGroup, ErasureCodingPolicy policy, byte[] liveIndices, DatanodeInfo[] sources,
    DatanodeInfo[] targets, StorageType[] targetStorageTypes, String[] targetStorageIds, BitSet excluded, int xmits) {

  static final String PKG = "org.apache.hadoop.hdfs.server.datanode.erasurecode.";

  /** Reflective access to the reconstructor's fields. */
  static final class Access {
    final Class<?> reconstructorClass;
    private final Field blockGroup;
    private final Field ecPolicy;
    private final Field excludeBitSet;
    private final Field stripedReader;
    private final Field liveIndices;
    private final Field sources;
    private final Field stripedWriter;
    private final Field targets;
    private final Field targetStorageTypes;
    private final Field targetStorageIds;
    private final Method getXmits;

    Access() throws ReflectiveOperationException {
      reconstructorClass = Class.forName(PKG + "StripedBlockReconstructor");
      Class<?> base = Class.forName(PKG + "StripedReconstructor");
      Class<?> reader = Class.forName(PKG + "StripedReader");
      Class<?> writer = Class.forName(PKG + "StripedWriter");
      blockGroup = field(base, "blockGroup");
      ecPolicy = field(base, "ecPolicy");
      excludeBitSet = field(base, "excludeBitSet");
      stripedReader = field(base, "stripedReader");
      liveIndices = field(reader, "liveIndices");
      sources = field(reader, "sources");
      stripedWriter = field(reconstructorClass, "stripedWriter");
      targets = field(writer, "targets");
      targetStorageTypes = field(writer, "targetStorageTypes");
      targetStorageIds = field(writer, "targetStorageIds");
      getXmits = base.getDeclaredMethod("getXmits");
      getXmits.setAccessible(true);
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
      Field f = c.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    }

    boolean isReconstructor(Object task) {
      return reconstructorClass.isInstance(task);
    }

    ReconstructionTask read(Object task) throws ReflectiveOperationException {
      Object r = stripedReader.get(task);
      Object w = stripedWriter.get(task);
      return new ReconstructionTask((ExtendedBlock) blockGroup.get(task), (ErasureCodingPolicy) ecPolicy.get(task),
          (byte[]) liveIndices.get(r), (DatanodeInfo[]) sources.get(r), (DatanodeInfo[]) targets.get(w),
          (StorageType[]) targetStorageTypes.get(w), (String[]) targetStorageIds.get(w), (BitSet) excludeBitSet.get(task),
          (Integer) getXmits.invoke(task));
    }
  }
}
