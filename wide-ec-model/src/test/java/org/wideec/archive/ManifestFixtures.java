package org.wideec.archive;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.wideec.code.Codes;
import org.wideec.code.LinearCode;
import org.wideec.code.UnitRole;

/** Manifests for the tests: the golden one (fixed forever) and seeded random ones of every shape. */
final class ManifestFixtures {
  static final String GOLDEN_RESOURCE = "/org/wideec/golden/stripe-manifest-1.bin";
  static final String LRC = "azure-lrc:k=4,l=2,g=1";

  private ManifestFixtures() {}

  /**
   * Directory /data/logs: stripe 7 full and VERIFIED (every CRC known, parity written), stripe 8 short and PLANNED
   * (one data block, three virtual data units, the second group's local parity virtual too).
   */
  static StripeManifest golden() {
    List<StripeMember> full = new ArrayList<>();
    long[] inodes = {16386, 16386, 16387, 16387};
    for (int u = 0; u < 4; u++) {
      full.add(StripeMember.data(inodes[u], 1073741825L + u, 1001 + u, u == 3 ? 1000 : 4096, "dn" + u + ":9866",
          "/rack" + u / 2).withCrc(0x1EDC6F41L + u));
    }
    full.add(new StripeMember(UnitRole.GLOBAL_PARITY, false, 16390, 1073741900L, 1100, 4096, 0xCAFEBABEL, "dn4:9866",
        "/rack2"));
    full.add(new StripeMember(UnitRole.LOCAL_PARITY, false, 16390, 1073741901L, 1100, 4096, 0x00000000L, "dn5:9866",
        "/rack0"));
    full.add(new StripeMember(UnitRole.LOCAL_PARITY, false, 16390, 1073741902L, 1100, 4096, 0xFFFFFFFFL, "dn6:9866",
        "/rack1"));
    ArchivedStripe seven = new ArchivedStripe(7, LRC, 1, StripeState.VERIFIED, "/.wideec/parity/16386-7", 16390, full);

    List<StripeMember> shortOne = new ArrayList<>();
    shortOne.add(StripeMember.data(16388, 1073741829L, 1005, 512, "dn7:9866", "/rack3"));
    for (int u = 1; u < 4; u++) {
      shortOne.add(StripeMember.padding(UnitRole.DATA));
    }
    shortOne.add(StripeMember.plannedParity(UnitRole.GLOBAL_PARITY, 512, "dn0:9866", "/rack0"));
    shortOne.add(StripeMember.plannedParity(UnitRole.LOCAL_PARITY, 512, "dn2:9866", "/rack1"));
    shortOne.add(StripeMember.padding(UnitRole.LOCAL_PARITY));
    ArchivedStripe eight = new ArchivedStripe(8, LRC, 1, StripeState.PLANNED, "", 0, shortOne);
    return new StripeManifest("/data/logs", ArchiveScope.DIRECTORY, List.of(seven, eight));
  }

  static byte[] goldenBytes() throws java.io.IOException {
    try (java.io.InputStream in = ManifestFixtures.class.getResourceAsStream(GOLDEN_RESOURCE)) {
      if (in == null) {
        throw new java.io.FileNotFoundException(GOLDEN_RESOURCE + " is missing from the test classpath");
      }
      return in.readAllBytes();
    }
  }

  /** A random consistent manifest: codes, states, padding, CRCs and names drawn from the seed. */
  static StripeManifest random(long seed) {
    Random rnd = new Random(seed);
    String[] specs = {LRC, "rs:k=6,m=3", "azure-lrc:k=64,l=4,g=4", "unilrc:alpha=1,z=6", "azure-lrc+1:k=4,l=2,g=2"};
    ArchiveScope scope = rnd.nextBoolean() ? ArchiveScope.FILE : ArchiveScope.DIRECTORY;
    long inode = 20000 + rnd.nextInt(1000);
    long block = 1073741825L + rnd.nextInt(1 << 20);
    List<ArchivedStripe> stripes = new ArrayList<>();
    long id = rnd.nextInt(5);
    for (int s = 0, count = 1 + rnd.nextInt(4); s < count; s++) {
      LinearCode code = Codes.pinnedFromSpec(specs[rnd.nextInt(specs.length)]);
      int real = s == count - 1 ? 1 + rnd.nextInt(code.k()) : code.k();
      StripeState state = StripeState.values()[rnd.nextInt(StripeState.values().length)];
      boolean written = state.parityWritten() || (state == StripeState.STALE && rnd.nextBoolean());
      long parityInode = written ? 30000 + s : 0;
      List<StripeMember> members = new ArrayList<>();
      long unitLength = 1 + rnd.nextInt(1 << 27);
      for (int u = 0; u < code.k(); u++) {
        if (u >= real) {
          members.add(StripeMember.padding(UnitRole.DATA));
          continue;
        }
        long length = u == 0 ? unitLength : 1 + rnd.nextLong(unitLength);
        StripeMember m = StripeMember.data(scope == ArchiveScope.FILE ? inode : inode + rnd.nextInt(3), block++,
            1000 + rnd.nextInt(5000), length, "node-" + s + "-" + u, "/rack" + rnd.nextInt(40));
        members.add(state.parityVerified() || rnd.nextBoolean() ? m.withCrc(rnd.nextLong(1L << 32)) : m);
      }
      for (int u = code.k(); u < code.n(); u++) {
        if (ArchivedStripe.zeroParity(code, u, d -> members.get(d).padding())) {
          members.add(StripeMember.padding(code.role(u)));
          continue;
        }
        StripeMember p = StripeMember.plannedParity(code.role(u), unitLength, "node-" + s + "-" + u, "/r\u00e4ck" + u);
        members.add(written ? p.written(parityInode, block++, 1000 + rnd.nextInt(5000), rnd.nextLong(1L << 32)) : p);
      }
      String parityFile = state == StripeState.PLANNED && rnd.nextBoolean() ? "" : "/.wideec/parity/" + inode + "-" + id;
      stripes.add(new ArchivedStripe(id, code.spec(), 1, state, parityFile, parityInode, members));
      id += 1 + rnd.nextInt(3);
    }
    return new StripeManifest("/user/\u00e9t\u00e9/archive-" + seed, scope, stripes);
  }
}
