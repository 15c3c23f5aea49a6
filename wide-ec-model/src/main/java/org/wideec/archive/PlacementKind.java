package org.wideec.archive;

import org.wideec.placement.CombinedLocalityPlanner;
import org.wideec.placement.FlatPlanner;
import org.wideec.placement.GroupPerRackPlanner;
import org.wideec.placement.PlacementPlanner;

/**
 * Where an archived stripe's units may go: combined locality (ECWide §3.4: local groups packed into racks, at
 * most f units of a stripe per rack), one local group per rack (UniLRC §3.1) or one unit per rack (flat).
 * The rules themselves are the placement planners'; the archival planner only chooses which real racks and
 * replicas realise them.
 */
public enum PlacementKind {
  CL("cl"),
  UNILRC("unilrc"),
  FLAT("flat");

  private final String label;

  PlacementKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public PlacementPlanner planner() {
    return switch (this) {
      case CL -> new CombinedLocalityPlanner();
      case UNILRC -> new GroupPerRackPlanner(1);
      case FLAT -> new FlatPlanner();
    };
  }

  /** The kind for a command-line name: cl, unilrc or flat. */
  public static PlacementKind byLabel(String label) {
    for (PlacementKind k : values()) {
      if (k.label.equals(label)) {
        return k;
      }
    }
    throw new ArchivalPlanException("unknown archival placement '" + label + "' (known: cl, unilrc, flat)");
  }
}
