package org.wideec.repair;

import org.wideec.topology.Site;

/** Where one unit of a stripe lives ({@code unit} -1: a requestor, which holds no unit). */
public record UnitLocation(int unit, Site site) {
  public UnitLocation {
    if (site == null) {
      throw new IllegalArgumentException("unit " + unit + " needs a site");
    }
  }

  /**
   * A unit known to be zero (virtual padding, or a parity over padding only): no DataNode holds it and nothing reads
   * it, so it stands in the reader's own rack, where planners count it free.
   */
  public static UnitLocation zero(int unit, String readerRack) {
    return new UnitLocation(unit, new Site("(zero unit)", readerRack));
  }

  public String node() {
    return site.node();
  }

  public String rack() {
    return site.rack();
  }
}
