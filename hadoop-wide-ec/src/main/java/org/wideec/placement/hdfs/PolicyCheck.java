package org.wideec.placement.hdfs;

import org.wideec.code.InvalidCodeSpecException;
import org.wideec.placement.PlacementException;
import org.wideec.placement.StripedPlacement;

/** What is wrong with an erasure-coding policy of our codecs, as an operator should read it; null when nothing. */
final class PolicyCheck {
  static final String UNBUILDABLE = "defines no code";

  private PolicyCheck() {}

  static String problem(String codec, int k, int m, String scheme) {
    try {
      StripedPlacement.planFor(codec, k, m, scheme);
      return null;
    } catch (InvalidCodeSpecException e) {
      return UNBUILDABLE + " (" + e.getMessage() + "); clients cannot write or read it, and its block groups are"
          + " placed by the stock policy. Remove it with hdfs ec -removePolicy";
    } catch (PlacementException e) {
      return "has no placement plan (" + e.getMessage() + "); its block groups are placed by the stock policy";
    }
  }
}
