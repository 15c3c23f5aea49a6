package org.wideec.archive;

/**
 * An archival request that cannot be planned (too few racks or nodes for the placement, a block without a live
 * replica, a code that may not store data) or a plan that would break an invariant. The message names the
 * file, block, stripe or rack involved.
 */
public class ArchivalPlanException extends IllegalArgumentException {
  public ArchivalPlanException(String message) {
    super(message);
  }

  public ArchivalPlanException(String message, Throwable cause) {
    super(message, cause);
  }
}
