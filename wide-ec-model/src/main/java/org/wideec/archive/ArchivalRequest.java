package org.wideec.archive;

import java.util.List;
import org.wideec.topology.Topology;

/**
 * What to archive and how: the archived path and scope, its files (in the order their blocks fill stripes), the
 * code spec, the placement and the live topology. Stripe ids are numbered from {@code firstStripeId}.
 */
public record ArchivalRequest(String path, ArchiveScope scope, List<SourceFile> files, String codeSpec,
    PlacementKind placement, Topology topology, long firstStripeId) {
  public ArchivalRequest {
    files = List.copyOf(files);
    if (firstStripeId < 0) {
      throw new ArchivalPlanException("stripe ids start at 0 or above, got " + firstStripeId);
    }
  }

  public ArchivalRequest(String path, ArchiveScope scope, List<SourceFile> files, String codeSpec,
      PlacementKind placement, Topology topology) {
    this(path, scope, files, codeSpec, placement, topology, 0);
  }
}
