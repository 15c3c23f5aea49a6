package org.wideec.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.wideec.archive.StripeLayout;
import org.wideec.archive.StripePlan;

/**
 * What {@code wide-ec archive --dry-run} prints for a stripe plan of any layout: the plan's JSON object with the
 * encoder and what it sends across racks, or the plan's description and the encoder line.
 */
final class DryRunOutput {
  /** The encoders of each layout, as the usage line names them. */
  private static final Map<StripeLayout, String> ENCODERS = Map.of(StripeLayout.SYSTEMATIC, "classic|chain",
      StripeLayout.NON_SYSTEMATIC, "classic|rapidraid");

  private DryRunOutput() {}

  /**
   * @param moreJson fields after the plan's own (JSON only)
   * @param notes lines between the description and the encoder line (text only)
   */
  static void print(StripePlan plan, String encoder, boolean json, Map<String, Object> moreJson, List<String> notes,
      PrintStream out) {
    if (json) {
      Map<String, Object> j = new LinkedHashMap<>(plan.toJson());
      j.put("encoder", encoder);
      j.put("crossRackBytesEncoding", plan.crossRackBytesEncoding(encoder));
      j.putAll(moreJson);
      out.println(Json.write(j));
      return;
    }
    out.print(plan.describe());
    notes.forEach(out::println);
    out.printf("encoder: %s (--encoder %s); nothing was changed (--dry-run)%n", encoder, ENCODERS.get(plan.layout()));
  }
}
