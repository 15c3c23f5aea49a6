package org.wideec.client;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.BlockReader;
import org.apache.hadoop.hdfs.WideEcClientAccess;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedStripedBlock;
import org.apache.hadoop.hdfs.security.token.block.InvalidBlockTokenException;
import org.apache.hadoop.hdfs.util.StripedBlockUtil;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.wideec.client.DegradedReadPlan.UnitRange;
import org.wideec.code.NotDecodableException;

/**
 * Carries out a {@link DegradedReadPlan} against DataNodes: fetches each planned internal-block range
 * over HDFS's data transfer (block tokens, SASL, checksums as the stock reader), and when a unit the
 * NameNode listed cannot be read after all, counts it lost and plans again with the rest. An expired
 * block token is renewed once by asking the NameNode for the group again, as DFSInputStream does.
 */
final class DegradedGroupReader {
  /** The group as the NameNode lists it now (fresh locations and tokens). */
  interface GroupRefresher {
    LocatedStripedBlock refresh(LocatedStripedBlock group) throws IOException;
  }

  private final StripedFile file;
  private final GroupRefresher refresher;

  DegradedGroupReader(StripedFile file, GroupRefresher refresher) {
    this.file = file;
    this.refresher = refresher;
  }

  /**
   * Writes group bytes [from, to) of {@code group} into dst at its position.
   *
   * @throws IOException naming the file, the block group, the code and the units when the range cannot be read
   */
  void read(LocatedStripedBlock group, long from, long to, ByteBuffer dst) throws IOException {
    BitSet failed = new BitSet();
    Map<UnitRange, ByteBuffer> fetched = new HashMap<>();
    List<IOException> errors = new ArrayList<>();
    boolean refreshed = false;
    while (true) {
      BitSet live = StripedFile.liveUnits(group);
      live.andNot(failed);
      DegradedReadPlan plan;
      try {
        plan = DegradedReadPlan.of(file.code(), file.layout(group), live, from, to);
      } catch (NotDecodableException e) {
        IOException io = new IOException(describe(group, from, to, failed) + ": " + e.getMessage(), e);
        errors.forEach(io::addSuppressed);
        throw io;
      }
      boolean complete = true;
      Map<Integer, ByteBuffer> inputs = new HashMap<>();
      for (UnitRange r : plan.fetches()) {
        ByteBuffer b = fetched.get(r);
        if (b == null) {
          try {
            b = fetchFromDataNode(group, r.unit(), r.start(), r.end());
          } catch (InvalidBlockTokenException | InvalidToken e) {
            if (refreshed) {
              throw new IOException(describe(group, from, to, failed) + ": block token for unit " + r.unit()
                  + " rejected after renewal", e);
            }
            refreshed = true;
            group = refresher.refresh(group);
            complete = false;
            break;
          } catch (IOException e) {
            failed.set(r.unit());
            errors.add(e);
            complete = false;
            continue;
          }
          fetched.put(r, b);
        }
        inputs.put(r.unit(), b.duplicate());
      }
      if (complete) {
        plan.assemble(inputs, file.coder(), dst);
        file.counters().degradedReads.incrementAndGet();
        int decoded = decodedBytes(plan, group);
        file.counters().bytesDecoded.addAndGet(decoded);
        WideEcClientAccess.countDecoded(file.client(), decoded);
        return;
      }
    }
  }

  private int decodedBytes(DegradedReadPlan plan, LocatedStripedBlock group) {
    int n = 0;
    int[] wanted = plan.wanted();
    for (BlockGroupLayout.CellRun run : file.layout(group).runs(plan.from(), plan.to())) {
      n += java.util.Arrays.binarySearch(wanted, run.unit()) >= 0 ? run.length() : 0;
    }
    return n;
  }

  private String describe(LocatedStripedBlock group, long from, long to, BitSet failed) {
    BitSet live = StripedFile.liveUnits(group);
    BitSet lost = new BitSet();
    for (int u = 0; u < file.code().n(); u++) {
      if (!live.get(u) && file.layout(group).internalLength(u) > 0) {
        lost.set(u);
      }
    }
    return file.src() + ": cannot read bytes [" + from + ", " + to + ") of block group " + group.getBlock()
        + " (code " + file.code().spec() + ", policy " + file.policy().getName() + "): NameNode lists no replica of units "
        + lost + (failed.isEmpty() ? "" : ", units " + failed + " failed to read");
  }

  /** Tries each listed replica of the unit in turn (a unit can briefly have two). */
  private ByteBuffer fetchFromDataNode(LocatedStripedBlock group, int unit, long start, long end) throws IOException {
    byte[] indices = group.getBlockIndices();
    IOException last = null;
    for (int i = 0; i < indices.length; i++) {
      if (indices[i] != unit) {
        continue;
      }
      LocatedBlock internal = StripedBlockUtil.constructInternalBlock(group, i, file.policy().getCellSize(),
          file.policy().getNumDataUnits(), unit);
      long began = System.nanoTime();
      int len = (int) (end - start);
      byte[] buf = new byte[len];
      try (BlockReader reader = WideEcClientAccess.blockReader(file.client(), file.src(), internal, 0, start, len,
          file.verifyChecksum())) {
        reader.readFully(buf, 0, len);
        WideEcClientAccess.countFetched(file.client(), reader.getNetworkDistance(), len, (System.nanoTime() - began) / 1_000_000);
      } catch (InvalidBlockTokenException | InvalidToken e) {
        throw e;
      } catch (IOException e) {
        last = new IOException(file.src() + ": unit " + unit + " of block group " + group.getBlock() + " on "
            + group.getLocations()[i] + ": " + e.getMessage(), e);
        continue;
      }
      file.counters().unitsFetched.incrementAndGet();
      file.counters().bytesFetched.addAndGet(len);
      return ByteBuffer.wrap(buf);
    }
    throw last != null ? last : new IOException(file.src() + ": no replica of unit " + unit + " of " + group.getBlock());
  }
}
