package org.wideec.archive;

import java.util.Map;

/**
 * A path's blocks grouped into stripes by a {@link StripePlanner}, whatever the layout: what
 * {@code wide-ec archive --dry-run} prints and costs. A plan is data (STYLE.md): printing, costing and carrying it
 * out are separate, and a new layout presents its plan through this interface rather than a printer of its own.
 */
public interface StripePlan {
  /** The archived path. */
  String path();

  String codeSpec();

  StripeLayout layout();

  /** Blocks copied before encoding (onto the node that keeps them, or onto an encoding chain). */
  long blocksMoved();

  long bytesMoved();

  long crossRackBytesMoved();

  /**
   * The bytes the named encoder sends across racks while encoding; null when that is not modelled (it depends on
   * where the archiver runs).
   *
   * @throws IllegalArgumentException for an encoder the plan was not made for
   */
  Long crossRackBytesEncoding(String encoder);

  /** A summary and the stripes, for people. */
  String describe();

  /** The plan as maps and lists of strings and numbers (camelCase keys), ready for a JSON writer. */
  Map<String, Object> toJson();
}
