package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.wideec.archive.StripeMember;
import org.wideec.client.WideEcFileSystem;

/**
 * An archived member whose bytes change after archival (racked test bed with the NameNode plugin's trimmer,
 * reprotection and repair monitor): through WideEcFileSystem an append or truncate of a member is refused, naming the
 * file and what to do; a stock client's append goes through, and the loss of another unit of the same stripe is then
 * rebuilt from the stripe as archived (the manifest's unit length and the appended member's archived bytes), so
 * nothing else in the stripe is lost.
 */
class AppendedMemberClusterTest extends ChangedMemberTestBed {
  /**
   * Reprotection passes once an hour: it would raise the other members' replication after the append, and the test
   * needs the lost unit to have no replica left, so that only a rebuild from the stripe brings it back.
   */
  @Override
  Configuration baseConf() {
    return reprotectingHourly(super.baseConf());
  }

  private FileSystem wideEc() throws IOException {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.get(fs.getUri(), c);
  }

  @Test
  void wideEcFileSystemRefusesAnAppendOrATruncateOfAnArchivedMemberAndNamesWhatToDo() throws Exception {
    String[] names = {"a", "b", "c"};
    archiveSmallFiles("/refuse", names);
    byte[] b = read("/refuse/b");
    String manifest = store.layout().manifest(store.inodeOf(new Path("/refuse"))).toUri().getPath();
    String refused = "/refuse/b is archived (a member of the stripes of manifest " + manifest + ") and cannot be ";
    String todo = ": its stripe's parity encodes its archived bytes. Run 'wide-ec unarchive' on the archived path"
        + " first, or write the new content to a new file and run 'wide-ec replace /refuse/b NEWFILE'";
    try (FileSystem ours = wideEc()) {
      IOException append = assertThrows(IOException.class, () -> ours.append(new Path("/refuse/b")));
      assertEquals(refused + "appended to" + todo, append.getMessage());
      IOException built = assertThrows(IOException.class, () -> ours.appendFile(new Path("/refuse/b")).build());
      assertEquals(refused + "appended to" + todo, built.getMessage());
      IOException truncate = assertThrows(IOException.class, () -> ours.truncate(new Path("/refuse/b"), 10));
      assertEquals(refused + "truncated" + todo, truncate.getMessage());

      checks.write("/plain", 1000); // not archived: appended as by a stock client
      try (FSDataOutputStream out = ours.append(new Path("/plain"))) {
        out.write(new byte[] {1, 2, 3});
      }
      assertEquals(1003, fs.getFileStatus(new Path("/plain")).getLen());
      checks.delete("/plain");
    }
    assertArrayEquals(b, read("/refuse/b"), "unchanged");
    checks.everyByteReadsBack();
  }

  @Test
  void afterAStockAppendToOneMemberTheLossOfAnotherIsRebuiltWithItsArchivedBytes() throws Exception {
    String dir = "/appended";
    AppendedThenLost t = appendToDThenLoseA(dir, new byte[] {9, 9, 9, 9, 9});
    StripeMember lost = t.lost();
    await(dir + "/a rebuilt under block " + lost.blockId(), () -> located(lost).getLocations().length > 0);
    assertEquals(lost.generationStamp(), located(lost).getBlock().getGenerationStamp());
    assertEquals(lost.length(), located(lost).getBlockSize());
    assertArrayEquals(t.archivedA(), read(dir + "/a"), "the rebuilt block holds a's archived bytes");
    assertTrue(t.appended().length() < fs.getFileStatus(new Path(dir + "/d")).getLen());
    checks.everyByteReadsBack();
  }
}
