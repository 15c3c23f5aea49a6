package org.wideec.archive;

import java.util.Locale;

/**
 * How an archive's blocks form stripes ({@link StripeGrouping}): in the files' order, or around core racks (EAR, Li et
 * al., DSN 2015: a rack holding a replica of every member lets the chain compute a stripe's parity inside that rack),
 * or whichever of the two the plan costs less ({@link #AUTO}, file order on a tie).
 */
public enum ArchiveGrouping {
  FILES,
  RACKS,
  AUTO;

  /** The configuration key and its default (the CLI's {@code --grouping} overrides it). */
  public static final String KEY = "wide-ec.archive.grouping";
  public static final String DEFAULT = "auto";

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The grouping for a command-line or configuration name: files, racks or auto. */
  public static ArchiveGrouping byLabel(String label) {
    for (ArchiveGrouping g : values()) {
      if (g.label().equals(label == null ? null : label.trim().toLowerCase(Locale.ROOT))) {
        return g;
      }
    }
    throw new ArchivalPlanException("unknown stripe grouping '" + label + "' (" + KEY + " or --grouping: files, racks"
        + " or auto)");
  }
}
