package org.wideec.archive.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.junit.jupiter.api.Test;

/** The archival job's pieces that need no cluster: overlap refusal, the item format, lock holder names, splits. */
class ArchiveListingTest {
  @Test
  void overlappingPathsAreRefusedByName() {
    ArchiveListing.refuseOverlaps(List.of(new Path("/a"), new Path("/ab"), new Path("/b/c")));
    assertEquals("/a/x is inside /a: one archive run would archive it twice; give one of them",
        assertThrows(IllegalArgumentException.class,
            () -> ArchiveListing.refuseOverlaps(List.of(new Path("/a/x"), new Path("/a")))).getMessage());
    assertEquals("/a is given twice", assertThrows(IllegalArgumentException.class,
        () -> ArchiveListing.refuseOverlaps(List.of(new Path("/a"), new Path("hdfs://nn:8020/a")))).getMessage());
  }

  @Test
  void anItemReadsBackAsWritten() throws Exception {
    ArchiveItem item = new ArchiveItem("/logs/2024", "host7", 123_456_789L, 3, new long[] {10, 0, 7});
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    item.write(new DataOutputStream(b));
    ArchiveItem back = new ArchiveItem();
    back.readFields(new DataInputStream(new ByteArrayInputStream(b.toByteArray())));
    assertEquals(item.toString(), back.toString());
    assertEquals(17, back.crossRackBytes());
    assertEquals(7, back.crossRackBytes(2));
    assertEquals(true, back.costed());
    ArchiveItem resumed = new ArchiveItem("/x", "", 5, 2, new long[0]);
    assertEquals(false, resumed.costed());
    assertEquals(0, resumed.crossRackBytes(1));
  }

  @Test
  void aLockHolderNamesItsTaskAttemptAndOnlyOursParse() {
    TaskAttemptID a = new TaskAttemptID("1795620036188", 3, TaskType.MAP, 2, 1);
    assertEquals(a.toString(), ArchiveJob.attemptOf(ArchiveJob.holder(a)).toString()); // forName gives the mapred subclass
    assertNull(ArchiveJob.attemptOf("host1 4242"), "a plain archive run's lock");
    assertNull(ArchiveJob.attemptOf("mr not-an-attempt on host 1"));
    assertNull(ArchiveJob.attemptOf(null));
  }

  @Test
  void splitsPutEachGroupsHostFirst() {
    List<ArchiveItem> items = List.of(new ArchiveItem("/a", "h1", 1, 1, new long[0]),
        new ArchiveItem("/b", "h2", 2, 1, new long[0]), new ArchiveItem("/c", "h3", 100, 1, new long[0]));
    List<List<ArchiveItem>> groups = ArchiveInputFormat.groups(items, 2);
    assertEquals(List.of(List.of("/b", "/a"), List.of("/c")),
        groups.stream().map(g -> g.stream().map(ArchiveItem::path).toList()).toList());
  }
}
