package org.wideec.update;

/**
 * A way to renew a stripe's parities after some of its data units change: who sends which deltas to whom. Pure:
 * the plan is data, printed, costed and executed elsewhere.
 */
public interface UpdateScheme {
  /** Short name used on the command line and in results: baseline, cau, parix, rackcu, ... */
  String name();

  /** The plan for one update, given which units of the stripe were updated before (only Parix looks). */
  UpdatePlan plan(UpdatePattern pattern, UpdateHistory history);

  /** The plan for a stripe none of whose units was updated before. */
  default UpdatePlan plan(UpdatePattern pattern) {
    return plan(pattern, UpdateHistory.NONE);
  }

  /** The scheme for a command-line name: baseline, cau, parix, rackcu, reencode. */
  static UpdateScheme byName(String name) {
    return switch (name) {
      case "baseline" -> new BaselineUpdate();
      case "cau" -> new CauUpdate();
      case "parix" -> new ParixUpdate();
      case "rackcu" -> new RackCu();
      case "reencode" -> new ReEncoding();
      default -> throw new IllegalArgumentException("unknown update scheme '" + name + "' (known: " + String.join(", ", NAMES) + ")");
    };
  }

  /** The delta-update schemes the seed compares (RackCU §V-A), in its order, then re-encoding. */
  java.util.List<String> NAMES = java.util.List.of("baseline", "cau", "parix", "rackcu", "reencode");
}
