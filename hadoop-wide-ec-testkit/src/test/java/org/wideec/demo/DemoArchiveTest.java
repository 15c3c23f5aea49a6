package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code wide-ec demo archive} end to end, the suite's one run of the archival layout at k = 64 on a real racked
 * cluster (108 DataNodes): every byte written is read back through WideEcFileSystem with a rack down, every block
 * lost with the rack is rebuilt under its own id, a directory is archived by a MapReduce job and an object sealed by
 * RapidRAID, and the last line is the JSON the issue asks for. The demo's blocks are 1 MiB; the test's are
 * {@link #BLOCK}: the same racks, DataNodes, codes and stripes, about as many blocks, and half the bytes written,
 * moved, encoded, rebuilt and read back.
 */
class DemoArchiveTest {
  static final long BLOCK = 512 * 1024;

  @TempDir
  Path dir;

  @Test
  void theArchivalDemoLosesNoByteAndEndsWithItsJson() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    int rc;
    try {
      rc = new DemoArchive(new Configuration(), new DemoConsole(out, "wide-ec demo archive"), BLOCK).run(dir.toFile());
    } finally {
      System.out.println(buf.toString(StandardCharsets.UTF_8)); // the transcript, in the test's output file
    }
    String printed = buf.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, printed);
    String[] lines = printed.strip().split("\n");
    JsonNode j = new ObjectMapper().readTree(lines[lines.length - 1]);
    assertEquals(64, j.get("k").asInt());
    assertEquals(72, j.get("n").asInt());
    assertEquals(3, j.get("stripes").asInt(), "two stripes of the directory, one of the large file");
    assertEquals(0, j.get("bytesLost").asLong());
    assertEquals(j.get("bytesWritten").asLong(), j.get("bytesReadBack").asLong());
    assertTrue(j.get("blocksRepaired").asInt() > 0, printed);
    assertTrue(j.get("crossRackBytesRepair").asLong() > 0, printed);
    // The code's 72/64 plus the parity of the short last stripe, whose padding is virtual.
    double r = j.get("redundancyAfter").asDouble();
    assertTrue(r > 72.0 / 64 && r < 1.25, "redundancy " + r);
    assertTrue(printed.contains("read back through WideEcFileSystem (fs.hdfs.impl), rack down"), printed);
    assertTrue(printed.contains("unarchived /big.bin"), printed);
    // The MapReduce job: one directory, one archive unit, its 84 blocks in the two stripes the listing planned.
    assertEquals(1, j.get("mrPaths").asInt(), printed);
    assertEquals(2, j.get("mrStripes").asInt(), printed);
    assertTrue(printed.contains("submitted job_"), printed);
    // The sealed object: 11 whole blocks, refused to a stock open, every byte back through WideEcFileSystem.
    assertEquals(11 * BLOCK, j.get("sealedBytes").asLong());
    assertEquals(j.get("sealedBytes").asLong(), j.get("sealedReadBack").asLong());
    assertTrue(j.get("stockOpenRefused").asBoolean(), printed);
  }
}
