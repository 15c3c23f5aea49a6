package org.wideec.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** An aligned text table for human output. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = cell(cells[i]);
    }
    rows.add(r);
    return this;
  }

  /** Human rendering of a value: 4 significant digits for doubles, arrays in brackets. */
  static String cell(Object v) {
    if (v instanceof Double d) {
      return d.isNaN() ? "n/a" : String.format(java.util.Locale.ROOT, "%.4g", d);
    }
    if (v instanceof int[] a) {
      return java.util.Arrays.toString(a);
    }
    return String.valueOf(v);
  }

  void print(PrintStream out) {
    int cols = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[cols];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        sb.append(i == 0 ? "" : "  ");
        sb.append(i == r.length - 1 ? r[i] : String.format("%-" + width[i] + "s", r[i]));
      }
      out.println(sb.toString().stripTrailing());
    }
  }
}
