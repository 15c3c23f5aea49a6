package org.wideec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.StringReader;
import java.nio.file.Files;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code archive --paths-from FILE}: the list's format and its errors, each naming the file and the line. */
class PathListTest {
  private static List<Path> parse(String text) throws Exception {
    return PathList.parse("list", new BufferedReader(new StringReader(text)));
  }

  private static String refused(String text) {
    return assertThrows(IllegalArgumentException.class, () -> parse(text)).getMessage();
  }

  @Test
  void oneAbsolutePathALineCommentsAndBlankLinesIgnored() throws Exception {
    assertEquals(List.of(new Path("/a/b"), new Path("/c d"), new Path("hdfs://nn:8020/e")),
        parse("# cold data\n/a/b\n\n   \n  /c d  \n  # indented comment\nhdfs://nn:8020/e\n"));
  }

  @Test
  void aRelativeLineIsRefusedByItsNumber() {
    assertEquals("--paths-from list line 3: 'data/x' is not an absolute path (start it with /)",
        refused("/a\n# c\ndata/x\n/b\n"));
  }

  @Test
  void aRepeatedPathIsRefusedNamingBothLines() {
    assertEquals("--paths-from list line 4: 'hdfs://nn/a' repeats line 1", refused("/a\n/b\n\nhdfs://nn/a\n"));
  }

  @Test
  void aListOfOnlyCommentsIsEmpty() {
    assertEquals("--paths-from list lists no paths (3 lines, all blank or # comments)", refused("# x\n\n#/a\n"));
    assertEquals("--paths-from list lists no paths (0 lines, all blank or # comments)", refused(""));
  }

  @Test
  void aBinaryFileWithoutNewlinesIsRefusedAtItsFirstLongLine(@TempDir java.nio.file.Path dir) throws Exception {
    byte[] junk = new byte[64 * PathList.MAX_LINE];
    new java.util.Random(7).nextBytes(junk);
    for (int i = 0; i < junk.length; i++) {
      junk[i] = junk[i] == '\n' || junk[i] == '\r' ? 0 : junk[i];
    }
    java.nio.file.Path f = dir.resolve("image.bin");
    Files.write(f, junk);
    String m = assertThrows(IllegalArgumentException.class, () -> PathList.read(new Configuration(),
        f.toUri().toString())).getMessage();
    assertTrue(m.endsWith("image.bin line 1 is longer than " + PathList.MAX_LINE + " characters: is this a list of"
        + " paths?"), m);
    assertEquals("--paths-from list line 2 is longer than " + PathList.MAX_LINE + " characters: is this a list of"
        + " paths?", refused("/a\r\n" + "/b".repeat(PathList.MAX_LINE)));
    assertEquals(List.of(new Path("/a"), new Path("/b"), new Path("/c")), parse("/a\r\n/b\r/c\n"));
  }

  @Test
  void aLocalFileIsReadAndAMissingOneOrADirectoryNamed(@TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path f = dir.resolve("paths.txt");
    Files.writeString(f, "/x\n/y\n");
    Configuration conf = new Configuration();
    assertEquals(List.of(new Path("/x"), new Path("/y")), PathList.read(conf, f.toUri().toString()));
    String missing = assertThrows(FileNotFoundException.class,
        () -> PathList.read(conf, dir.resolve("none").toUri().toString())).getMessage();
    assertTrue(missing.contains("none: no such file on file:///"), missing);
    String folder = assertThrows(IllegalArgumentException.class, () -> PathList.read(conf, dir.toUri().toString()))
        .getMessage();
    assertTrue(folder.endsWith("is a directory, not a list of paths"), folder);
  }
}
