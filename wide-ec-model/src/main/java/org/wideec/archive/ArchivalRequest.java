package org.wideec.archive;

import java.util.List;
import org.wideec.topology.Topology;

/**
 * What to archive and how: the archived path and scope, its files (in the order their blocks fill stripes when
 * grouped by {@link ArchiveGrouping#FILES}), the code spec, the placement, the live topology and how the blocks form
 * stripes. Stripe ids are numbered from {@code firstStripeId}.
 */
public record ArchivalRequest(String path, ArchiveScope scope, List<SourceFile> files, String codeSpec,
    PlacementKind placement, Topology topology, long firstStripeId, ArchiveGrouping grouping) {
  public ArchivalRequest {
    files = List.copyOf(files);
    if (firstStripeId < 0) {
      throw new ArchivalPlanException("stripe ids start at 0 or above, got " + firstStripeId);
    }
    if (grouping == null) {
      throw new ArchivalPlanException("an archival request needs a stripe grouping (files, racks or auto)");
    }
  }

  /** Blocks in the files' order. */
  public ArchivalRequest(String path, ArchiveScope scope, List<SourceFile> files, String codeSpec,
      PlacementKind placement, Topology topology, long firstStripeId) {
    this(path, scope, files, codeSpec, placement, topology, firstStripeId, ArchiveGrouping.FILES);
  }

  /** The same request grouped another way. */
  public ArchivalRequest withGrouping(ArchiveGrouping g) {
    return new ArchivalRequest(path, scope, files, codeSpec, placement, topology, firstStripeId, g);
  }

  public ArchivalRequest(String path, ArchiveScope scope, List<SourceFile> files, String codeSpec,
      PlacementKind placement, Topology topology) {
    this(path, scope, files, codeSpec, placement, topology, 0);
  }
}
