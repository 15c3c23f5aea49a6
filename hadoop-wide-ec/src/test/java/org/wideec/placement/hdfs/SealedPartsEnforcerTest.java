package org.wideec.placement.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.hdfs.server.namenode.INode;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider.AccessControlEnforcer;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributeProvider.AuthorizationContext;
import org.apache.hadoop.hdfs.server.namenode.INodeAttributes;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.wideec.archive.hdfs.ArchiveLayout;
import org.wideec.archive.hdfs.SealedPart;

/**
 * The sealed-parts enforcer's rule, apart from a NameNode: checks outside the parts go to the wrapped enforcer by
 * either API (unpacked for one that has only the old API), a superuser's go there too, and a non-superuser asking
 * more than to read a part, or to read anything but an index or codeword, is refused before any lookup.
 */
class SealedPartsEnforcerTest {
  static final byte[][] ROOT = SealedPart.rootComponents(new ArchiveLayout("/.wideec", (short) 3));
  final UserGroupInformation bob = UserGroupInformation.createUserForTesting("bob", new String[] {"other"});
  final UserGroupInformation admin = UserGroupInformation.createUserForTesting("admin", new String[] {"supergroup"});
  final List<String> passed = new ArrayList<>();

  /** An enforcer with the old API only, recording the paths it was asked about. */
  final AccessControlEnforcer oldApi = new AccessControlEnforcer() {
    @Override
    public void checkPermission(String fsOwner, String supergroup, UserGroupInformation ugi, INodeAttributes[] attrs,
        INode[] inodes, byte[][] components, int snapshotId, String path, int ancestorIndex, boolean doCheckOwner,
        FsAction ancestorAccess, FsAction parentAccess, FsAction access, FsAction subAccess, boolean ignoreEmptyDir) {
      passed.add(path);
    }
  };

  SealedPartsEnforcer enforcer() {
    return new SealedPartsEnforcer(null, oldApi, ROOT,
        new RateLimitedWarning(LoggerFactory.getLogger(SealedPartsEnforcerTest.class), 60_000));
  }

  static byte[][] components(String path) {
    return Arrays.stream(path.split("/", -1)).map(n -> n.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  }

  void check(UserGroupInformation who, String path, boolean owner, FsAction parent, FsAction access)
      throws AccessControlException {
    enforcer().checkPermission("hdfs", "supergroup", who, null, new INode[components(path).length],
        components(path), 0, path, 0, owner, null, parent, access, null, false);
  }

  void checkWithContext(UserGroupInformation who, String path, FsAction access) throws AccessControlException {
    AuthorizationContext c = new AuthorizationContext.Builder().fsOwner("hdfs").supergroup("supergroup")
        .callerUgi(who).inodes(new INode[components(path).length]).pathByNameArr(components(path)).path(path)
        .access(access).operationName("open").build();
    enforcer().checkPermissionWithContext(c);
  }

  @Test
  void checksOutsideThePartsGoToTheWrappedEnforcerByEitherApi() throws Exception {
    check(bob, "/user/bob/f", false, null, FsAction.READ);
    checkWithContext(bob, "/user/bob/g", FsAction.WRITE);
    check(bob, "/.wideec/manifests/1.wecm", false, null, FsAction.READ);
    assertEquals(List.of("/user/bob/f", "/user/bob/g", "/.wideec/manifests/1.wecm"), passed);
  }

  @Test
  void aSuperusersChecksOnPartsGoToTheWrappedEnforcer() throws Exception {
    check(admin, "/.wideec/codewords/7/0/u1", false, null, FsAction.WRITE);
    checkWithContext(admin, "/.wideec/sealed/9.wecm", FsAction.ALL);
    assertEquals(2, passed.size());
  }

  @Test
  void aNonSuperuserIsRefusedEverythingButReadingAnIndexOrCodeword() {
    String[] parts = {"/.wideec/codewords/7/0/u1", "/.wideec/sealed/9.wecm"};
    for (String p : parts) {
      for (FsAction a : new FsAction[] {FsAction.WRITE, FsAction.READ_EXECUTE, FsAction.ALL}) {
        refused(() -> check(bob, p, false, null, a));
        refused(() -> checkWithContext(bob, p, a));
      }
      refused(() -> check(bob, p, true, null, null)); // an owner's check: setAcl, chmod
      refused(() -> check(bob, p, false, FsAction.WRITE, null)); // delete, rename
    }
    for (String p : new String[] {"/.wideec/codewords/7/original", "/.wideec/codewords/7", "/.wideec/sealed",
        "/.wideec/codewords/7/restored"}) {
      refused(() -> check(bob, p, false, null, FsAction.READ));
      refused(() -> checkWithContext(bob, p, null));
    }
    // An index or codeword that does not exist is refused before anything is looked up.
    refused(() -> check(bob, parts[0], false, null, FsAction.READ));
    refused(() -> checkWithContext(bob, parts[1], FsAction.READ));
    assertEquals(List.of(), passed, "the wrapped enforcer was never asked about a part");
  }

  interface Check {
    void run() throws AccessControlException;
  }

  static void refused(Check c) {
    AccessControlException e = assertThrows(AccessControlException.class, c::run);
    assertTrue(e.getMessage().contains(SealedPart.REFUSAL), e.getMessage());
  }
}
