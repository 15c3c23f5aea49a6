package org.wideec.archive;

import java.io.IOException;

/**
 * Stored archival metadata (a stripe manifest or an archived file's pointer) that must not be used: cut short,
 * failing its checksum, of a format this build does not read, malformed, or describing stripes that cannot be.
 * The message names the file and what is wrong; nothing is ever returned from such bytes.
 */
public class CorruptManifestException extends IOException {
  /** What is wrong, for callers that react differently (a newer format vs. a corrupt file). */
  public enum Reason {
    TRUNCATED,
    CHECKSUM,
    VERSION,
    MALFORMED,
    INCONSISTENT
  }

  private final Reason reason;

  public CorruptManifestException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public CorruptManifestException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
