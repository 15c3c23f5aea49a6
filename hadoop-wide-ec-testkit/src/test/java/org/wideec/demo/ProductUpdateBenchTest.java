package org.wideec.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code bench update --product} end to end on one RS archive (the LRC is the same path, with local groups): the
 * churn with two schemes, each command held to its plan. The sweep's end-to-end run is the bench's (it would add about
 * 200 s to the suite); {@code ProductCrossoverTest} checks how it measures and chooses.
 */
class ProductUpdateBenchTest {
  @Test
  @SuppressWarnings("unchecked")
  void theChurnComparesEveryByteDecodesEveryStripeAndReportsEachSchemesBytesPerReclaimedGib() throws Exception {
    String code = "rs:k=6,m=3"; // the RS stripe with combined locality: three units per rack
    ProductUpdateBench.Settings s = new ProductUpdateBench.Settings(List.of(code), List.of("baseline", "rackcu"),
        false, 6, 3, 1 << 20, null, 100_000_000, 10, 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Map<String, Object> json = new ProductUpdateBench(s, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
    assertEquals(ProductUpdateBench.LAYER, json.get("layer"));
    assertTrue(((Number) json.get("bytesCompared")).longValue() > 0, json.toString());
    assertEquals(0, ((Number) json.get("bytesLost")).longValue());
    assertEquals(6, ((Number) json.get("stripesDecoded")).intValue(), "each scheme's archive: 15 files in 3 stripes,"
        + " the fill's 3 in the last one's open slots: " + json);
    Map<String, Object> schemes = (Map<String, Object>) ((Map<String, Object>) json.get("codes")).get(code);
    assertEquals(List.of("baseline", "rackcu"), List.copyOf(schemes.keySet()));
    for (Object o : schemes.values()) {
      Map<String, Object> j = (Map<String, Object>) o;
      assertTrue(((Number) j.get("crossRackBytesPerReclaimedGiB")).doubleValue() > 0, j.toString());
      assertTrue(j.containsKey("reclaimSeconds") && j.containsKey("fillCrossRackBytes"), j.toString());
      assertEquals(3, ((Number) j.get("filesRemoved")).intValue());
    }
    // Each scheme runs on its own archive, placed at random, so the schemes are compared on the same archive by what
    // the updater chooses (the delta plan, or re-encoding where that crosses racks less), and each run is held to its
    // choice. The roles' reports and the CRC32C digests the commit checks ask for cross racks too, a few bytes each,
    // and how many depends on where HDFS put each new block: they are bounded below one chunk.
    long unit = 1 << 20;
    for (String scheme : List.of("baseline", "rackcu")) {
      Map<String, Object> j = (Map<String, Object>) schemes.get(scheme);
      long bytes = ((Number) j.get("crossRackBytes")).longValue();
      long chosen = ((Number) j.get("chosenCrossRackBytes")).longValue();
      // A delta plan sends whole chunks; a stripe the updater re-encodes sends its kept units' lengths along the chain,
      // and whether re-encoding is cheaper depends on where the archive's units landed.
      assertTrue(chosen > 0 && (Boolean.TRUE.equals(j.get("chosenReEncodes")) || chosen % unit == 0),
          scheme + " sends whole chunks across racks, or re-encodes: " + j);
      assertTrue(bytes >= chosen && bytes - chosen < unit, scheme + ": every chunk of its choice crossed racks and"
          + " only reports and digests besides: " + j);
      // The fill, held the same way to what its own dry run plans and the updater chooses for it.
      long fill = ((Number) j.get("fillCrossRackBytes")).longValue();
      long fillChosen = ((Number) j.get("fillChosenCrossRackBytes")).longValue();
      assertTrue(fillChosen > 0 && (Boolean.TRUE.equals(j.get("fillChosenReEncodes")) || fillChosen % unit == 0),
          scheme + "'s fill sends whole chunks, or re-encodes: " + j);
      assertTrue(ProductCrossover.heldTo(fillChosen, fill, unit), scheme + ": every chunk the fill's choice sends"
          + " crossed racks and only reports and digests besides: " + j);
      Map<String, Object> byScheme = (Map<String, Object>) j.get("chosenCrossRackBytesByScheme");
      assertTrue(((Number) byScheme.get("rackcu")).longValue() <= ((Number) byScheme.get("baseline")).longValue(),
          "three units of a stripe removed at once, on the " + scheme + " run's archive: " + byScheme);
    }
  }
}
