package org.wideec.repair;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.wideec.code.LinearCode;
import org.wideec.gf.Matrix;

/**
 * How the inputs of a multi-unit decode reach the requestor (several lost units of one stripe rebuilt by one decode):
 * the code chooses one input set for all of them, and each input is read once. Each rack other than the requestor's
 * sends its inputs raw when it holds no more of them than there are lost units; a rack holding more sends instead one
 * in-rack partial sum per lost unit (a chain through its helpers, each adding its unit times its decoding coefficient),
 * so no rack sends more streams across than the decode has outputs (ECWide §4.1's in-rack aggregation, one stream per
 * output). The requestor's own rack always sends raw: those bytes never cross racks. Pure data, so the NameNode can
 * cost a plan before ordering it and the requestor executes exactly that plan.
 */
public final class MultiUnitStreams {
  /**
   * One stream to the requestor: a chain of helpers (the last sends to the requestor), each multiplying its unit by
   * its coefficient and adding what the previous one sent. A raw stream is one helper with coefficient 1.
   *
   * @param output index into the lost units of the partial sum this stream carries, or -1 for a raw input
   */
  public record Shape(List<UnitLocation> chain, int[] coefficients, int output) {
    public Shape {
      chain = List.copyOf(chain);
      coefficients = coefficients.clone();
    }

    /** The helper that sends the stream to the requestor. */
    public UnitLocation head() {
      return chain.get(chain.size() - 1);
    }
  }

  private final int[] inputs;
  private final List<Shape> streams;
  private final int[][] combine;

  private MultiUnitStreams(int[] inputs, List<Shape> streams, int[][] combine) {
    this.inputs = inputs;
    this.streams = List.copyOf(streams);
    this.combine = combine;
  }

  /**
   * @param available surviving units by unit; zero units need not be listed (they are added)
   * @param rackSums whether racks holding more inputs than there are lost units send partial sums (the
   *     rack-aggregated scheme); otherwise every input is sent raw
   * @throws org.wideec.code.NotDecodableException when the available units cannot rebuild every lost one
   */
  public static MultiUnitStreams plan(LinearCode code, int[] lost, Map<Integer, UnitLocation> available,
      Set<Integer> zeros, String requestorRack, boolean rackSums) {
    BitSet have = new BitSet();
    available.keySet().forEach(have::set);
    zeros.forEach(have::set);
    int[] chosen = code.chooseInputs(have, lost);
    Matrix d = code.decodingMatrix(chosen, lost);
    // Non-zero inputs by rack, in unit order within each rack.
    Map<String, List<Integer>> byRack = new TreeMap<>();
    List<Integer> read = new ArrayList<>();
    for (int j = 0; j < chosen.length; j++) {
      if (!zeros.contains(chosen[j])) {
        byRack.computeIfAbsent(available.get(chosen[j]).rack(), r -> new ArrayList<>()).add(j);
        read.add(chosen[j]);
      }
    }
    List<Shape> streams = new ArrayList<>();
    List<int[]> columns = new ArrayList<>(); // per stream: its combining coefficient for each output
    for (Map.Entry<String, List<Integer>> rack : byRack.entrySet()) {
      List<Integer> cols = rack.getValue();
      boolean sums = rackSums && !rack.getKey().equals(requestorRack) && cols.size() > lost.length;
      if (!sums) {
        for (int j : cols) {
          streams.add(new Shape(List.of(available.get(chosen[j])), new int[] {1}, -1));
          int[] c = new int[lost.length];
          for (int o = 0; o < lost.length; o++) {
            c[o] = d.get(o, j);
          }
          columns.add(c);
        }
        continue;
      }
      for (int o = 0; o < lost.length; o++) {
        List<UnitLocation> chain = new ArrayList<>();
        List<Integer> coefs = new ArrayList<>();
        for (int j : cols) {
          if (d.get(o, j) != 0) {
            chain.add(available.get(chosen[j]));
            coefs.add(d.get(o, j));
          }
        }
        if (chain.isEmpty()) {
          continue; // this rack's inputs do not enter output o
        }
        streams.add(new Shape(chain, coefs.stream().mapToInt(Integer::intValue).toArray(), o));
        int[] c = new int[lost.length];
        c[o] = 1;
        columns.add(c);
      }
    }
    int[][] combine = new int[lost.length][streams.size()];
    for (int s = 0; s < streams.size(); s++) {
      for (int o = 0; o < lost.length; o++) {
        combine[o][s] = columns.get(s)[o];
      }
    }
    return new MultiUnitStreams(read.stream().mapToInt(Integer::intValue).toArray(), streams, combine);
  }

  /** The units read (each once), ascending; zero units are never read. */
  public int[] inputs() {
    return inputs.clone();
  }

  public List<Shape> streams() {
    return streams;
  }

  /** How the requestor combines the streams: [lost unit][stream]. */
  public int[][] combine() {
    int[][] c = new int[combine.length][];
    for (int o = 0; o < c.length; o++) {
      c[o] = combine[o].clone();
    }
    return c;
  }

  /** Streams that reach the requestor from another rack (each the length of the longest lost unit). */
  public int crossRackStreams(String requestorRack) {
    int n = 0;
    for (Shape s : streams) {
      n += s.head().rack().equals(requestorRack) ? 0 : 1;
    }
    return n;
  }
}
