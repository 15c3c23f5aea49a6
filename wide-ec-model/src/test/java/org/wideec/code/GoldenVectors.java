package org.wideec.code;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checked-in golden vectors of the on-disk format (src/test/resources/org/wideec/golden), written by
 * {@link FormatGenerator}:
 * <ul>
 *   <li>{@code format-1.vectors}: for every shipped policy and a spec of every family, the full generator
 *       and the codeword of {@link GoldenData}'s fixed data, one block per code:
 *       {@code code TAB spec TAB why}, n lines {@code g TAB row}, n lines {@code u TAB unit}.</li>
 *   <li>{@code format-1.sha256}: for every pinned code, {@code spec TAB sha256(generator) TAB
 *       sha256(codeword)}.</li>
 * </ul>
 */
public final class GoldenVectors {
  public static final String DIR = "/org/wideec/golden/";
  public static final String VECTORS = "format-" + CodeFormat.FORMAT_VERSION + ".vectors";
  public static final String HASHES = "format-" + CodeFormat.FORMAT_VERSION + ".sha256";

  /** A code's full golden vector: generator rows and codeword units, in unit order. */
  public record Vector(String spec, String why, byte[][] generator, byte[][] codeword) {}

  /** A pinned code's golden hashes. */
  public record Hashes(String spec, String generatorSha256, String codewordSha256) {}

  private GoldenVectors() {}

  public static List<Vector> vectors() {
    List<Vector> out = new ArrayList<>();
    String spec = null;
    String why = null;
    List<byte[]> g = new ArrayList<>();
    List<byte[]> u = new ArrayList<>();
    for (String[] f : lines(VECTORS)) {
      switch (f[0]) {
        case "code" -> {
          if (spec != null) {
            out.add(new Vector(spec, why, g.toArray(new byte[0][]), u.toArray(new byte[0][])));
          }
          spec = f[1];
          why = f[2];
          g.clear();
          u.clear();
        }
        case "g" -> g.add(GoldenData.unhex(f[1]));
        case "u" -> u.add(GoldenData.unhex(f[1]));
        default -> throw new IllegalArgumentException(VECTORS + ": unknown record " + f[0]);
      }
    }
    if (spec != null) {
      out.add(new Vector(spec, why, g.toArray(new byte[0][]), u.toArray(new byte[0][])));
    }
    return out;
  }

  /** Hashes by spec, in file order. */
  public static Map<String, Hashes> hashes() {
    Map<String, Hashes> out = new LinkedHashMap<>();
    for (String[] f : lines(HASHES)) {
      out.put(f[0], new Hashes(f[0], f[1], f[2]));
    }
    return out;
  }

  /** The hashes of a code's generator and of its codeword of the fixed data. */
  public static Hashes hashesOf(String spec, org.wideec.gf.Matrix generator, byte[][] codeword) {
    return new Hashes(spec, GoldenData.sha256(GoldenData.bytes(generator)), GoldenData.sha256(codeword));
  }

  private static List<String[]> lines(String name) {
    List<String[]> out = new ArrayList<>();
    try (InputStream in = GoldenVectors.class.getResourceAsStream(DIR + name)) {
      if (in == null) {
        throw new IllegalStateException("golden vector file " + DIR + name + " is missing");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (!line.isBlank() && !line.startsWith("#")) {
          out.add(line.split("\t", -1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
