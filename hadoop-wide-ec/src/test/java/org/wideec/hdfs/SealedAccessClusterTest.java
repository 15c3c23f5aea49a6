package org.wideec.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeManifest;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.CodewordFiles;
import org.wideec.archive.hdfs.SealedArchiver;
import org.wideec.archive.hdfs.SealedFiles;
import org.wideec.archive.hdfs.SealedPart;
import org.wideec.client.WideEcFileSystem;

/**
 * A sealed file's bytes are readable by exactly whoever may read its path, at every moment (racked test bed, the
 * NameNode plugin in force over an external authorizer that implements only the old enforcer API): after a chmod of
 * a parent, a chown, an ACL entry given and taken back, or a rename into a private directory, another user is refused
 * every part (reader's index, each codeword, the codeword directories, the archive's private directory and what waits
 * there) with a stock client and the file through WideEcFileSystem, while the users the path admits read every byte.
 */
class SealedAccessClusterTest extends ArchiveTestBed {
  static final String RR = "rapidraid:n=8,k=4";
  final UserGroupInformation alice = UserGroupInformation.createUserForTesting("alice", new String[] {"staff"});
  final UserGroupInformation bob = UserGroupInformation.createUserForTesting("bob", new String[] {"other"});
  final UserGroupInformation carol = UserGroupInformation.createUserForTesting("carol", new String[] {"guests"});
  final UserGroupInformation dave = UserGroupInformation.createUserForTesting(DenyingTestProvider.DENIED,
      new String[] {"staff"});

  @Override
  Configuration baseConf() {
    Configuration c = new Configuration();
    c.set("dfs.namenode.plugins", "org.wideec.placement.hdfs.WideEcNameNodePlugin");
    c.set("dfs.namenode.inode.attributes.provider.class", DenyingTestProvider.class.getName());
    return c;
  }

  /**
   * Writes seeded bytes in {@code dir} (made 0755, owned by alice), owned by alice with {@code mode}, seals them, and
   * leaves a file where a stopped swap sets the original aside (a guessed path must be refused whatever it holds;
   * HDFS names a path that does not exist before it checks permissions, so the file must be there).
   */
  byte[] sealed(String path, int mode) throws Exception {
    Path dir = new Path(path).getParent();
    fs.mkdirs(dir, new FsPermission((short) 0755));
    fs.setOwner(dir, "alice", "staff");
    byte[] data = new byte[(int) (5 * BLOCK + 321)]; // two stripes of rapidraid(8, 4), the second short
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    fs.setOwner(new Path(path), "alice", "staff");
    fs.setPermission(new Path(path), new FsPermission((short) mode));
    ToolRun run = tool("archive", path, "--code", RR);
    assertEquals(0, run.exit(), run.out() + run.err());
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo(path)));
    setAsideOriginal(path);
    return data;
  }

  FileSystem wideEc() throws Exception {
    Configuration c = new Configuration(conf);
    c.set("fs.hdfs.impl", WideEcFileSystem.class.getName());
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  FileSystem stock() throws Exception {
    Configuration c = new Configuration(conf);
    c.setBoolean("fs.hdfs.impl.disable.cache", true);
    return FileSystem.newInstance(fs.getUri(), c);
  }

  <T> T as(UserGroupInformation who, PrivilegedExceptionAction<T> action) throws Exception {
    return who.doAs(action);
  }

  byte[] readThroughOurs(UserGroupInformation who, String path, int length) throws Exception {
    return as(who, () -> {
      try (FileSystem ours = wideEc(); FSDataInputStream in = ours.open(new Path(path))) {
        byte[] out = new byte[length];
        in.readFully(0, out);
        return out;
      }
    });
  }

  /** Every part of the sealed file at {@code path}, as the superuser finds them. */
  record Parts(Path index, List<Path> codewords, List<Path> dirs, Path privateDir) {}

  Parts parts(String path) throws Exception {
    long placeholder = fs.getClient().getFileInfo(path).getFileId();
    StripeManifest m = store.read(new Path(store.pointer(new Path(path)).manifestPath()));
    List<Path> codewords = new ArrayList<>();
    List<Path> dirs = new ArrayList<>();
    for (ArchivedStripe s : m.stripes()) {
      dirs.add(new Path(s.parityFilePath()));
      for (int u = 0; u < s.members().size(); u++) {
        codewords.add(CodewordFiles.file(s, u));
      }
    }
    Path privateDir = dirs.get(0).getParent();
    dirs.add(privateDir);
    dirs.add(privateDir.getParent());
    dirs.add(store.layout().root());
    return new Parts(store.layout().sealedIndex(placeholder), codewords, dirs, privateDir);
  }

  /**
   * {@code who} is refused every byte of the sealed file at {@code path}: its index, each codeword (open, read, block
   * locations) and every directory listing with a stock client, anything waiting in the archive's private directory,
   * and the file itself through WideEcFileSystem; every refusal an AccessControlException.
   */
  void refusedEveryByte(UserGroupInformation who, String path, int length) throws Exception {
    Parts p = parts(path);
    List<Path> files = new ArrayList<>(p.codewords());
    files.add(p.index());
    files.add(new Path(p.privateDir(), "original")); // what a swap sets aside, by its guessable name
    for (Path f : files) {
      Exception e = assertThrows(Exception.class, () -> as(who, () -> {
        try (FileSystem stock = stock(); FSDataInputStream in = stock.open(f)) {
          return in.read();
        }
      }), who.getShortUserName() + " read " + f);
      assertInstanceOf(AccessControlException.class, e, f + ": " + e);
      Exception where = assertThrows(Exception.class, () -> as(who, () -> {
        try (FileSystem stock = stock()) {
          return stock.getFileBlockLocations(f, 0, 1);
        }
      }), who.getShortUserName() + " located " + f);
      assertInstanceOf(AccessControlException.class, where, f + ": " + where);
    }
    for (Path d : p.dirs()) {
      Exception e = assertThrows(Exception.class, () -> as(who, () -> {
        try (FileSystem stock = stock()) {
          return stock.listStatus(d);
        }
      }), who.getShortUserName() + " listed " + d);
      assertInstanceOf(AccessControlException.class, e, d + ": " + e);
    }
    Exception ours = assertThrows(Exception.class, () -> readThroughOurs(who, path, length));
    assertInstanceOf(AccessControlException.class, ours, ours.toString());
  }

  /** Puts a file readable by everyone's mode bits where a swap sets the original aside. */
  void setAsideOriginal(String path) throws Exception {
    Path original = new Path(parts(path).privateDir(), "original");
    try (FSDataOutputStream o = fs.create(original, true)) {
      o.write("the original's bytes".getBytes(StandardCharsets.UTF_8));
    }
    fs.setPermission(original, new FsPermission((short) 0644));
  }

  @Test
  void anotherUserCannotReadAnyPartAfterTheParentIsLocked() throws Exception {
    String path = "/locked/dir/f";
    byte[] data = sealed(path, 0644);
    assertArrayEquals(data, readThroughOurs(bob, path, data.length), "the path admits bob first");
    as(alice, () -> {
      try (FileSystem ours = wideEc()) {
        ours.setPermission(new Path("/locked/dir"), new FsPermission((short) 0700));
      }
      return null;
    });
    refusedEveryByte(bob, path, data.length);
    assertArrayEquals(data, readThroughOurs(alice, path, data.length));
  }

  @Test
  void anotherUserCannotReadAnyPartAfterTheFileIsGivenAwayPrivately() throws Exception {
    String path = "/given/f";
    byte[] data = sealed(path, 0644);
    assertArrayEquals(data, readThroughOurs(bob, path, data.length));
    fs.setOwner(new Path(path), "carol", "guests");
    fs.setPermission(new Path(path), new FsPermission((short) 0600));
    refusedEveryByte(bob, path, data.length);
    refusedEveryByte(alice, path, data.length);
    assertArrayEquals(data, readThroughOurs(carol, path, data.length), "the new owner reads every byte");
  }

  @Test
  void anAccessChangeMadeWhileTheSealRunsReachesThePlaceholder() throws Exception {
    String path = "/racing/f";
    fs.mkdirs(new Path("/racing"), new FsPermission((short) 0755));
    fs.setOwner(new Path("/racing"), "alice", "staff");
    byte[] data = new byte[(int) (5 * BLOCK + 321)];
    new Random(path.hashCode()).nextBytes(data);
    try (FSDataOutputStream o = fs.create(new Path(path), (short) 3)) {
      o.write(data);
    }
    fs.setOwner(new Path(path), "alice", "staff");
    fs.setPermission(new Path(path), new FsPermission((short) 0644));
    // The owner locks the file after its codewords are written, just before the swap moves it aside.
    new SealedArchiver(fs, store, SealedArchiver.classic(fs), org.wideec.archive.hdfs.Archiver.Hook.NONE, 1)
        .withSwapHook(step -> {
          if (step.equals("moving")) {
            try {
              as(alice, () -> {
                try (FileSystem a = stock()) {
                  a.setPermission(new Path(path), new FsPermission((short) 0600));
                }
                return null;
              });
            } catch (Exception e) {
              throw new java.io.IOException(e);
            }
          }
        }).archive(new Path(path), RR);
    assertTrue(SealedFiles.isSealed(fs.getClient().getFileInfo(path)));
    assertEquals(new FsPermission((short) 0600), fs.getFileStatus(new Path(path)).getPermission());
    setAsideOriginal(path);
    refusedEveryByte(bob, path, data.length);
    assertArrayEquals(data, readThroughOurs(alice, path, data.length));
  }

  @Test
  void anAclEntryAdmitsAUserUntilTheAclIsRemoved() throws Exception {
    String path = "/acl/f";
    byte[] data = sealed(path, 0640);
    refusedEveryByte(bob, path, data.length);
    // Bob may still list the directory, as for any file he cannot read; only the owner sees the original length.
    assertEquals(0L, listedLength(bob, path), "a reader the file refuses sees the placeholder's length");
    assertEquals((long) data.length, listedLength(alice, path));
    as(alice, () -> {
      try (FileSystem ours = wideEc()) {
        ours.modifyAclEntries(new Path(path), AclEntry.parseAclSpec("user:bob:r--", true));
      }
      return null;
    });
    assertArrayEquals(data, readThroughOurs(bob, path, data.length), "the ACL entry admits bob");
    as(alice, () -> {
      try (FileSystem ours = wideEc()) {
        ours.removeAcl(new Path(path));
      }
      return null;
    });
    refusedEveryByte(bob, path, data.length);
    assertArrayEquals(data, readThroughOurs(alice, path, data.length));
  }

  @Test
  void anotherUserCannotReadAnyPartAfterTheFileMovesIntoAPrivateDirectory() throws Exception {
    String path = "/moving/pub/f";
    byte[] data = sealed(path, 0644);
    fs.mkdirs(new Path("/moving/priv"));
    fs.setOwner(new Path("/moving/priv"), "alice", "staff");
    fs.setPermission(new Path("/moving/priv"), new FsPermission((short) 0700));
    assertArrayEquals(data, readThroughOurs(bob, path, data.length));
    String moved = "/moving/priv/f";
    as(alice, () -> {
      try (FileSystem ours = wideEc()) {
        return ours.rename(new Path(path), new Path(moved));
      }
    });
    refusedEveryByte(bob, moved, data.length);
    assertArrayEquals(data, readThroughOurs(alice, moved, data.length));
  }

  @Test
  void anExternalAuthorizerDecidesThePartsOnThePath() throws Exception {
    String path = "/external/f";
    byte[] data = sealed(path, 0644);
    long before = DenyingTestProvider.CHECKS.get();
    assertArrayEquals(data, readThroughOurs(bob, path, data.length));
    assertTrue(DenyingTestProvider.CHECKS.get() > before, "the external authorizer was asked");
    // Dave's mode bits admit him (group staff, other r), but the external authorizer refuses him the path.
    refusedEveryByte(dave, path, data.length);
  }

  @Test
  void noOneButASuperuserWritesDeletesListsOrChangesAPart() throws Exception {
    String path = "/own/f";
    byte[] data = sealed(path, 0644);
    Parts p = parts(path);
    Path codeword = p.codewords().get(0);
    List<PrivilegedExceptionAction<Object>> attempts = new ArrayList<>();
    for (Path part : List.of(p.index(), codeword)) {
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          a.create(part, true).close();
        }
        return null;
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          a.append(part).close();
        }
        return null;
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          return a.delete(part, false);
        }
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          a.setAcl(part, AclEntry.parseAclSpec("user::rw-,group::r--,other::r--", true));
        }
        return null;
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          a.setPermission(part, new FsPermission((short) 0644));
        }
        return null;
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          return a.setReplication(part, (short) 3);
        }
      });
      attempts.add(() -> {
        try (FileSystem a = stock()) {
          return a.rename(part, new Path("/own/stolen"));
        }
      });
    }
    attempts.add(() -> {
      try (FileSystem a = stock()) {
        return a.delete(p.privateDir(), true);
      }
    });
    for (PrivilegedExceptionAction<Object> attempt : attempts) {
      Exception e = assertThrows(Exception.class, () -> as(alice, attempt));
      assertInstanceOf(AccessControlException.class, e, e.toString());
    }
    assertEquals(1, fs.getFileStatus(codeword).getReplication());
    assertFalse(fs.getFileStatus(codeword).hasAcl());
    assertEquals((short) 0600, fs.getFileStatus(p.index()).getPermission().toShort());
    for (Path d : p.dirs()) {
      assertEquals((short) 0700, fs.getFileStatus(d).getPermission().toShort(), d.toString());
      assertFalse(fs.getFileStatus(d).hasAcl(), d.toString());
    }
    assertArrayEquals(data, readThroughOurs(alice, path, data.length), "every part intact: the owner reads it all");
  }

  @Test
  void partsSealedWithMirroredAclsAreDecidedOnThePathAndMadePrivate() throws Exception {
    String path = "/legacy/f";
    byte[] data = sealed(path, 0600);
    Parts p = parts(path);
    // What the previous build left: ACL entries copied from the file (here also naming bob), traverse-only
    // directories, no link from the codeword directory to its sealed file.
    List<AclEntry> mirrored = AclEntry.parseAclSpec("user::r--,user:alice:r--,user:bob:r--,group::---,mask::r--,"
        + "other::r--", true);
    List<Path> files = new ArrayList<>(p.codewords());
    files.add(p.index());
    for (Path f : files) {
      fs.setAcl(f, mirrored);
    }
    for (Path d : p.dirs()) {
      fs.setPermission(d, new FsPermission((short) 0711));
    }
    fs.removeXAttr(p.privateDir(), SealedPart.LINK_XATTR);

    refusedEveryByte(bob, path, data.length); // the copies admit him, the path does not
    assertThrows(AccessControlException.class, () -> readThroughOurs(alice, path, data.length),
        "no link: the codewords' sealed file is unknown, so they are refused");

    new SealedFiles(fs, ArchiveLayout.from(conf)).privatizeAll();
    for (Path f : files) {
      assertFalse(fs.getFileStatus(f).hasAcl(), f.toString());
      assertEquals((short) 0600, fs.getFileStatus(f).getPermission().toShort(), f.toString());
    }
    for (Path d : p.dirs()) {
      assertEquals((short) 0700, fs.getFileStatus(d).getPermission().toShort(), d.toString());
    }
    assertEquals(Long.toString(fs.getClient().getFileInfo(path).getFileId()),
        new String(fs.getXAttr(p.privateDir(), SealedPart.LINK_XATTR), StandardCharsets.UTF_8));
    assertArrayEquals(data, readThroughOurs(alice, path, data.length));
    refusedEveryByte(bob, path, data.length);
  }

  /** The length WideEcFileSystem lists for {@code path} in its directory, as {@code user}. */
  private long listedLength(UserGroupInformation user, String path) throws Exception {
    return as(user, () -> {
      try (FileSystem ours = wideEc()) {
        for (org.apache.hadoop.fs.FileStatus st : ours.listStatus(new Path(path).getParent())) {
          if (st.getPath().toUri().getPath().equals(path)) {
            assertEquals(st.getLen(), ours.getFileStatus(new Path(path)).getLen(), "listed and stat agree");
            return st.getLen();
          }
        }
        throw new AssertionError(path + " not listed");
      }
    });
  }
}
