package org.wideec.update;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.code.LinearCode;
import org.wideec.placement.PlacementPlan;

/**
 * The text form of a stripe's layout and update, as {@code wide-ec update plan} takes it (docs/updates.md):
 * <ul>
 *   <li>racks: {@code R1:d0,d1;R2:d2,d3;R3:p0,p1}: rack name, colon, its units; d&lt;i&gt; is data unit i,
 *       p&lt;j&gt; the j-th parity (global parities first, then local ones, the code's unit order); every unit once;</li>
 *   <li>units: {@code d0,d1,d4-d7}: a list of data units, with ranges;</li>
 *   <li>collectors: {@code R1:R2,R3:R4}: rack R1 sends its data deltas to R2, R3 to R4.</li>
 * </ul>
 * Errors name the offending token.
 */
public final class RackLayout {
  private RackLayout() {}

  /** The stripe's placement with no unit changed yet, racks named as given. */
  public static UpdatePattern parse(LinearCode code, String racks) {
    Map<String, List<Integer>> byRack = new LinkedHashMap<>();
    int[] rackOf = new int[code.n()];
    Arrays.fill(rackOf, -1);
    for (String part : racks.split(";")) {
      String entry = part.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int colon = entry.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("rack entry '" + entry + "' is not NAME:UNIT,UNIT,...");
      }
      String name = entry.substring(0, colon).trim();
      if (byRack.containsKey(name)) {
        throw new IllegalArgumentException("rack " + name + " listed twice");
      }
      List<Integer> units = new ArrayList<>();
      for (int u : units(code, entry.substring(colon + 1), true)) {
        if (rackOf[u] >= 0) {
          throw new IllegalArgumentException("unit " + UpdatePattern.unitName(code, u) + " placed twice (rack " + name + ")");
        }
        rackOf[u] = byRack.size();
        units.add(u);
      }
      if (units.isEmpty()) {
        throw new IllegalArgumentException("rack " + name + " holds no unit");
      }
      byRack.put(name, units);
    }
    for (int u = 0; u < code.n(); u++) {
      if (rackOf[u] < 0) {
        throw new IllegalArgumentException(code.spec() + ": unit " + UpdatePattern.unitName(code, u) + " is in no rack");
      }
    }
    PlacementPlan plan = new PlacementPlan("given", code, rackOf);
    return UpdatePattern.of(plan).withRackNames(new ArrayList<>(byRack.keySet()));
  }

  /** Data units named in a list such as {@code d0,d1,d4-d7}. */
  public static int[] dataUnits(LinearCode code, String list) {
    return units(code, list, false);
  }

  /** Per rack of the pattern, the collector rack named for it in {@code R1:R2,R3:R4}, or -1. */
  public static int[] collectors(UpdatePattern pattern, String list) {
    int[] collectorOf = new int[pattern.racks()];
    Arrays.fill(collectorOf, -1);
    for (String part : list.split(",")) {
      String entry = part.trim();
      int colon = entry.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("collector entry '" + entry + "' is not RACK:COLLECTOR");
      }
      int from = rack(pattern, entry.substring(0, colon).trim());
      collectorOf[from] = rack(pattern, entry.substring(colon + 1).trim());
    }
    // A collector keeps its own deltas (the seed's second assumption), so it need not be listed.
    for (int c : collectorOf.clone()) {
      if (c >= 0 && collectorOf[c] < 0) {
        collectorOf[c] = c;
      }
    }
    return collectorOf;
  }

  private static int rack(UpdatePattern pattern, String name) {
    int r = pattern.rackNames().indexOf(name);
    if (r < 0) {
      throw new IllegalArgumentException("no rack named '" + name + "' (racks: " + String.join(", ", pattern.rackNames()) + ")");
    }
    return r;
  }

  private static int[] units(LinearCode code, String list, boolean parities) {
    List<Integer> out = new ArrayList<>();
    for (String part : list.split(",")) {
      String token = part.trim();
      if (token.isEmpty()) {
        continue;
      }
      int dash = token.indexOf('-');
      int lo = unit(code, dash < 0 ? token : token.substring(0, dash).trim(), parities);
      int hi = dash < 0 ? lo : unit(code, token.substring(dash + 1).trim(), parities);
      if (hi < lo || (lo < code.k()) != (hi < code.k())) {
        throw new IllegalArgumentException("unit range '" + token + "' is not ascending within data or parity units");
      }
      for (int u = lo; u <= hi; u++) {
        out.add(u);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int unit(LinearCode code, String token, boolean parities) {
    String expected = parities ? "d0..d" + (code.k() - 1) + " or p0..p" + (code.m() - 1) : "d0..d" + (code.k() - 1);
    if (token.length() < 2 || (token.charAt(0) != 'd' && !(parities && token.charAt(0) == 'p'))) {
      throw new IllegalArgumentException("unit '" + token + "' of " + code.spec() + " is not one of " + expected);
    }
    int i;
    try {
      i = Integer.parseInt(token.substring(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("unit '" + token + "' of " + code.spec() + " is not one of " + expected);
    }
    int limit = token.charAt(0) == 'd' ? code.k() : code.m();
    if (i < 0 || i >= limit) {
      throw new IllegalArgumentException("unit '" + token + "' of " + code.spec() + " is not one of " + expected);
    }
    return token.charAt(0) == 'd' ? i : code.k() + i;
  }
}
