package org.wideec.placement.hdfs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.hdfs.protocol.DSQuotaExceededException;
import org.apache.hadoop.hdfs.protocol.NSQuotaExceededException;
import org.apache.hadoop.hdfs.protocol.QuotaByStorageTypeExceededException;
import org.apache.hadoop.hdfs.protocol.QuotaExceededException;
import org.apache.hadoop.ipc.RemoteException;

/**
 * HDFS refused a namespace change for a quota: raising a file's replication is charged to the space quota of every
 * directory above it, so a user near quota never gets the added replicas. The NameNode sets the exceeded directory
 * on the exception, but over RPC only its message travels (DFSClient rebuilds the exception from it), so the
 * directory is read back from that message.
 *
 * @param directory the directory whose quota is exceeded, or "a directory above it" when the message names none
 * @param message HDFS's own message (the quota and what is used)
 */
record QuotaRefusal(String directory, String message) {
  /** "The DiskSpace quota of /d is exceeded", "... quota ... of directory /d is exceeded", "... on path : /d is ...". */
  private static final Pattern DIRECTORY = Pattern.compile("(?: of (?:directory )?| on path : )(/\\S*) is exceeded");

  /** The quota refusal {@code e} is, or null when it is another failure. */
  static QuotaRefusal of(Throwable e) {
    Throwable t = e;
    if (t instanceof RemoteException re) { // a quota class DFSClient did not unwrap for this call
      t = re.unwrapRemoteException(QuotaExceededException.class, DSQuotaExceededException.class,
          NSQuotaExceededException.class, QuotaByStorageTypeExceededException.class);
    }
    if (!(t instanceof QuotaExceededException)) {
      return null;
    }
    // Over RPC the message carries the NameNode's stack trace after its first line: the first line says it all.
    String msg = String.valueOf(t.getMessage()).lines().findFirst().orElse("").trim();
    Matcher m = DIRECTORY.matcher(msg);
    return new QuotaRefusal(m.find() ? m.group(1) : "a directory above it", msg);
  }
}
