package org.wideec.archive.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.hadoop.fs.permission.FsAction;
import org.junit.jupiter.api.Test;

/** Which paths are a sealed file's parts, and which checks ask only to read one. */
class SealedPartTest {
  static final byte[][] ROOT = SealedPart.rootComponents(new ArchiveLayout("/.wideec", (short) 3));

  static byte[][] components(String path) {
    String[] names = path.split("/", -1); // "/a/b" -> "", "a", "b": the root's empty name first, as HDFS gives them
    return Arrays.stream(names).map(n -> n.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  }

  static SealedPart of(String path) {
    return SealedPart.of(ROOT, components(path));
  }

  @Test
  void aReadersIndexNamesItsSealedFile() {
    assertEquals(new SealedPart(SealedPart.Kind.INDEX, 16390), of("/.wideec/sealed/16390.wecm"));
  }

  @Test
  void aCodewordNamesItsArchive() {
    assertEquals(new SealedPart(SealedPart.Kind.CODEWORD, 16385), of("/.wideec/codewords/16385/0/u7"));
    assertEquals(new SealedPart(SealedPart.Kind.CODEWORD, 16385), of("/.wideec/codewords/16385/12/u15"));
  }

  @Test
  void everythingElseUnderSealedOrCodewordsIsAnotherPart() {
    for (String p : new String[] {"/.wideec/sealed", "/.wideec/sealed/16390.wecm.tmp", "/.wideec/sealed/x.wecm",
        "/.wideec/sealed/1.wecm/deeper", "/.wideec/codewords", "/.wideec/codewords/16385",
        "/.wideec/codewords/16385/0", "/.wideec/codewords/16385/original", "/.wideec/codewords/16385/restored",
        "/.wideec/codewords/16385/placeholder", "/.wideec/codewords/16385/0/u", "/.wideec/codewords/16385/0/x7",
        "/.wideec/codewords/16385/a/u7", "/.wideec/codewords/x/0/u7", "/.wideec/codewords/16385/0/u7/more",
        "/.wideec/codewords/1/0/u99999999999999999999"}) {
      assertEquals(SealedPart.Kind.OTHER_PART, of(p).kind(), p);
    }
  }

  @Test
  void pathsOutsideSealedAndCodewordsAreNoParts() {
    for (String p : new String[] {"/", "/.wideec", "/.wideec/manifests/1.wecm", "/.wideec/parity/1/0/u3",
        "/user/alice/f", "/.wideecx/sealed/1.wecm", "/x/.wideec/sealed/1.wecm", "/sealed/1.wecm"}) {
      assertEquals(SealedPart.Kind.NOT_A_PART, of(p).kind(), p);
    }
    assertEquals(SealedPart.Kind.NOT_A_PART, SealedPart.of(ROOT, new byte[][] {null}).kind(), "the root alone");
  }

  @Test
  void everyPathThroughASnapshotOfTheSystemDirectoryOrAnAncestorIsAPartOnlySuperusersUse() {
    // HDFS hands a permission check ".snapshot/<name>" as one component; a caller's path has it as two.
    for (String p : new String[] {"/.wideec/.snapshot/s0/sealed/16390.wecm", "/.snapshot/s0/.wideec/sealed/16390.wecm",
        "/.snapshot/s0/.wideec/codewords/16385/0/u7", "/.wideec/.snapshot/s0/codewords/16385/0/u7",
        "/.wideec/.snapshot/s0/manifests/1.wecm", "/.wideec/sealed/.snapshot/s0/16390.wecm",
        "/.wideec/codewords/16385/.snapshot/s0/0/u7"}) {
      assertEquals(SealedPart.Kind.OTHER_PART, of(p).kind(), p);
      assertEquals(SealedPart.Kind.OTHER_PART, SealedPart.of(ROOT, merged(p)).kind(), "merged: " + p);
    }
    for (String p : new String[] {"/.snapshot/s0", "/.snapshot/s0/.wideec", "/.wideec/.snapshot/s0",
        "/.snapshot/s0/user/alice/f", "/user/.snapshot/s0/.wideec/sealed/1.wecm"}) {
      assertEquals(SealedPart.Kind.NOT_A_PART, of(p).kind(), p);
      assertEquals(SealedPart.Kind.NOT_A_PART, SealedPart.of(ROOT, merged(p)).kind(), "merged: " + p);
    }
  }

  /** The components as INodesInPath gives them for a snapshot path: ".snapshot" and the name as one. */
  private static byte[][] merged(String path) {
    String joined = path.replaceFirst("/\\.snapshot/([^/]+)", "/.snapshot\u0001$1");
    return Arrays.stream(joined.split("/", -1)).map(n -> n.replace('\u0001', '/').getBytes(StandardCharsets.UTF_8))
        .toArray(byte[][]::new);
  }

  @Test
  void theConfiguredRootIsRespected() {
    byte[][] root = SealedPart.rootComponents(new ArchiveLayout("/sys/wide-ec/", (short) 3));
    assertEquals(SealedPart.Kind.INDEX, SealedPart.of(root, components("/sys/wide-ec/sealed/5.wecm")).kind());
    assertEquals(SealedPart.Kind.CODEWORD, SealedPart.of(root, components("/sys/wide-ec/codewords/5/0/u1")).kind());
    assertEquals(SealedPart.Kind.NOT_A_PART, SealedPart.of(root, components("/.wideec/sealed/5.wecm")).kind());
    assertEquals(SealedPart.Kind.NOT_A_PART, SealedPart.of(root, components("/sys/sealed/5.wecm")).kind());
  }

  @Test
  void onlyAReadOrAStatusOfThePathItselfAsksOnlyToRead() {
    assertTrue(SealedPart.asksOnlyToRead(false, null, null, null, null), "a status call: traverse only");
    assertTrue(SealedPart.asksOnlyToRead(false, null, null, FsAction.READ, null), "open, block locations");
    for (FsAction a : FsAction.values()) {
      if (a != FsAction.READ) {
        assertFalse(SealedPart.asksOnlyToRead(false, null, null, a, null), a.toString());
      }
      assertFalse(SealedPart.asksOnlyToRead(false, a, null, null, null), "ancestor " + a);
      assertFalse(SealedPart.asksOnlyToRead(false, null, a, null, null), "parent " + a);
      assertFalse(SealedPart.asksOnlyToRead(false, null, null, null, a), "subtree " + a);
    }
    assertFalse(SealedPart.asksOnlyToRead(true, null, null, FsAction.READ, null), "an owner's check (setAcl, chmod)");
  }
}
