package org.wideec.archive.hdfs;

import java.io.IOException;

/**
 * A data block of a stripe is no longer the block the manifest records (an append or truncate gave it a new
 * generation stamp or length, or the file is gone): the stripe's parity does not protect it. The message names the
 * stripe, the unit, the block and what changed.
 */
public final class StaleStripeException extends IOException {
  private final long stripeId;

  public StaleStripeException(long stripeId, String message) {
    super(message);
    this.stripeId = stripeId;
  }

  public long stripeId() {
    return stripeId;
  }
}
