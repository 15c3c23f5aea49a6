package org.wideec.archive.hdfs;

import java.io.IOException;
import java.util.List;
import org.wideec.archive.ArchivedStripe;
import org.wideec.archive.StripeLayout;

/**
 * The HDFS work of one {@link StripeLayout}'s steps, which the {@link Archiver} calls in the order the {@link
 * org.wideec.archive.StripeLifecycle} decides: the systematic layout's ({@link SystematicSteps}: parity beside the
 * blocks, pointers, moves onto plan) and the non-systematic one's ({@link NonSystematicSteps}: codewords, the
 * placeholder swap). None records a transition: the archiver does, before each takes effect.
 */
interface LayoutSteps {
  StripeLayout layout();

  /** The writer of this run's units. */
  StripeEncoder encoder();

  /**
   * The data the stripe protects is still exactly what was planned (block ids, generation stamps, lengths; the file
   * not open for writing).
   *
   * @throws StaleStripeException naming what changed
   */
  void checkUnchanged(ArchivedStripe s) throws IOException;

  /** Before a PLANNED stripe is encoded: put the data where the encoder reads it (nothing by default). */
  default void prepareEncode(ArchivedStripe s) throws IOException {}

  /** Every stored unit is still the recorded block and reads back through HDFS to its recorded CRC32C. */
  void verifyUnits(ArchivedStripe s) throws IOException;

  /** A COMMITTED (or TRIMMED) stripe's share of taking effect: the systematic pointers. Nothing by default. */
  default void afterCommit(ArchivedStripe s) throws IOException {}

  /**
   * After every stripe was stepped: the archive's share of taking effect (the non-systematic swap and TRIMMED).
   *
   * @return whether the layout has taken effect for the whole archive
   */
  default boolean finish() throws IOException {
    return false;
  }

  /** True once the units are the only copy of the bytes (a sealed placeholder): nothing may be marked STALE. */
  default boolean unitsOnlyCopy() {
    return false;
  }

  /** Deletes the units of stripes just recorded STALE, which the lifecycle allowed to go. */
  void deleteUnits(List<ArchivedStripe> stale) throws IOException;
}
