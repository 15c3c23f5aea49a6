package org.wideec.demo;

import static org.wideec.demo.DemoFiles.require;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.StripeMember;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.time.Backoff;

/** Where an archive's stored units are, checked against the plan: each on its planned rack, alone, within tolerance. */
final class PlannedPlacementCheck {
  private PlannedPlacementCheck() {}

  /** The rack of the one live replica of every stored member (data block or parity block) of the manifests. */
  static Map<Long, String> locations(DistributedFileSystem fs, List<StripeManifest> manifests) throws IOException {
    Map<Long, String> rack = new HashMap<>();
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        for (StripeMember u : s.members()) {
          if (u.padding() || rack.containsKey(u.blockId())) {
            continue;
          }
          for (LocatedBlock lb : fs.getClient().getLocatedBlocks(ArchiveLayout.inodePath(u.inodeId()).toString(), 0, Long.MAX_VALUE)
              .getLocatedBlocks()) {
            DatanodeInfo[] where = lb.getLocations();
            rack.put(lb.getBlock().getBlockId(), where.length == 0 ? "" : where.length == 1 ? where[0].getNetworkLocation()
                : "replicated x" + where.length);
          }
        }
      }
    }
    return rack;
  }

  /** Every stored member on its planned rack, alone; returns how many were checked. */
  static int checkPlacement(List<StripeManifest> manifests, Map<Long, String> rackOfBlock) throws IOException {
    int checked = 0;
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        for (StripeMember u : s.members()) {
          if (u.padding()) {
            continue;
          }
          String actual = rackOfBlock.get(u.blockId());
          require(u.plannedRack().equals(actual), "block " + u.blockId() + " of stripe " + s.stripeId() + " of "
              + m.archivedPath() + " is on " + actual + ", planned " + u.plannedRack());
          checked++;
        }
      }
      checkTolerance(List.of(m), rackOfBlock);
    }
    return checked;
  }

  /** No rack holds more stored units of a stripe than the code tolerates losing. */
  static void checkTolerance(List<StripeManifest> manifests, Map<Long, String> rackOfBlock) throws IOException {
    for (StripeManifest m : manifests) {
      for (ArchivedStripe s : m.stripes()) {
        int tolerated = s.code().guaranteedTolerance();
        require(tolerated >= 0, s.codeSpec() + " states no tolerance; the demo's codes do");
        Map<String, Integer> perRack = new HashMap<>();
        for (StripeMember u : s.members()) {
          if (!u.padding()) {
            perRack.merge(rackOfBlock.get(u.blockId()), 1, Integer::sum);
          }
        }
        for (Map.Entry<String, Integer> e : perRack.entrySet()) {
          require(e.getValue() <= tolerated, "stripe " + s.stripeId() + " of " + m.archivedPath() + " has "
              + e.getValue() + " units on " + e.getKey() + ", more than the " + tolerated + " its code tolerates");
        }
      }
    }
  }

  /** Waits until every listed block has a live replica again, under its own id. */
  static void awaitLive(DistributedFileSystem fs, List<StripeManifest> manifests, List<Long> blocks,
      long timeoutMs) throws IOException, InterruptedException {
    Backoff poll = Backoff.doubling(500, 500, timeoutMs);
    while (true) {
      Map<Long, String> now = locations(fs, manifests);
      List<Long> missing = blocks.stream().filter(b -> now.getOrDefault(b, "").isEmpty()).toList();
      if (missing.isEmpty()) {
        return;
      }
      if (poll.expired()) {
        throw new IOException(missing.size() + " archived blocks still missing after " + timeoutMs / 1000 + " s: "
            + missing.subList(0, Math.min(10, missing.size())));
      }
      poll.pause();
    }
  }

}
