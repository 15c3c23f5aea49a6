package org.wideec.analysis;

import java.util.ArrayList;
import java.util.List;
import org.wideec.placement.CombinedLocalityPlanner;

/**
 * ECWide Table 4 and Figure 3: redundancy against cross-rack repair bandwidth (in chunks) for k data chunks
 * that must survive any f node failures, for (n,k,r) Azure-LRC placed one chunk per rack, (n,k,z) topology
 * locality and (n,k,r,z) combined locality. Closed forms, no codes built, so sweeps are instant.
 */
public final class LocalityTradeoff {
  private LocalityTradeoff() {}

  /** One scheme's point: e.g. (136,128,27,34) CL with redundancy 1.0625 and 6 cross-rack chunks. */
  public record Point(String scheme, int f, int n, int k, int r, int z, double redundancy, double crossRack) {
    public String label() {
      return switch (scheme) {
        case "TL" -> "(" + n + "," + k + "," + z + ") TL";
        case "LRC" -> "(" + n + "," + k + "," + r + ") Azure-LRC";
        default -> "(" + n + "," + k + "," + r + "," + z + ") CL";
      };
    }
  }

  /** Equation (2): n = k + ceil(k/r) + f - 1. */
  public static int lrcLength(int k, int r, int f) {
    return k + ceilDiv(k, r) + f - 1;
  }

  /** Smallest r with ceil(k/r) <= k(gamma-1) - f + 1 (equation (3)), or a clear error when none exists. */
  public static int rMin(int k, int f, double gamma) {
    check(k, f, gamma);
    double budget = k * (gamma - 1) - f + 1;
    for (int r = 1; r <= k; r++) {
      if (ceilDiv(k, r) <= budget + 1e-9) {
        return r;
      }
    }
    throw new IllegalArgumentException("no Azure-LRC with k=" + k + " surviving f=" + f + " fits redundancy " + gamma
        + ": even one local group needs n/k = " + String.format("%.4f", (k + f) / (double) k));
  }

  public static Point topologyLocality(int k, int f) {
    int n = k + f;
    int z = ceilDiv(n, f);
    return new Point("TL", f, n, k, k, z, n / (double) k, z - 1);
  }

  public static Point azureLrc(int k, int f, int r) {
    int n = lrcLength(k, r, f);
    return new Point("LRC", f, n, k, r, n, n / (double) k, r);
  }

  /** CL with groups packed per ECWide §3.4; cross-rack cost of a data chunk, ceil((r+1)/f) - 1. */
  public static Point combinedLocality(int k, int f, int r) {
    int n = lrcLength(k, r, f);
    int[] racks = layout(k, f, r);
    int z = java.util.Arrays.stream(racks).max().orElse(-1) + 1;
    return new Point("CL", f, n, k, r, z, n / (double) k, ceilDiv(r + 1, f) - 1);
  }

  /** Figure 3: TL's point and, for each n within the redundancy cap, LRC's and CL's points at the smallest r. */
  public static List<Point> sweep(int k, int f, double gamma) {
    check(k, f, gamma);
    List<Point> out = new ArrayList<>();
    Point tl = topologyLocality(k, f);
    if (tl.redundancy() <= gamma + 1e-12) {
      out.add(tl);
    }
    int lastN = -1;
    for (int r = 1; r <= k; r++) {
      int n = lrcLength(k, r, f);
      if (n / (double) k > gamma + 1e-12 || n == lastN) {
        continue;
      }
      lastN = n;
      out.add(azureLrc(k, f, r));
      out.add(combinedLocality(k, f, r));
    }
    return out;
  }

  /** Rack of every chunk of (n,k,r) CL: local groups in order, then the f-1 global parities. */
  static int[] layout(int k, int f, int r) {
    int l = ceilDiv(k, r);
    int[] sizes = new int[l];
    for (int i = 0; i < l; i++) {
      sizes[i] = Math.min(r, k - i * r) + 1;
    }
    return CombinedLocalityPlanner.pack(sizes, f - 1, f);
  }

  static void check(int k, int f, double gamma) {
    if (k < 1 || k > 255 || f < 1 || gamma <= 1) {
      throw new IllegalArgumentException("need 1 <= k <= 255, f >= 1 and gamma > 1, got k=" + k + " f=" + f + " gamma=" + gamma);
    }
  }

  static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
