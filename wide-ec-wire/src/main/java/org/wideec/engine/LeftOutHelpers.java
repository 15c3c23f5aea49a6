package org.wideec.engine;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The helpers one repair plans without (ECPipe §3.2: a failed helper is replaced and the repair restarts), and which of
 * them it may ask again when the rest cannot decode: first those earlier repairs found unusable (left out from the
 * start as a preference), then those whose streams never opened in this repair (unreachable, or an error of their own
 * before any frame: a handshake that timed out behind a full uplink). Nothing either sent was used; a helper blamed for
 * what it sent stays out.
 */
final class LeftOutHelpers {
  private final Set<String> all = new HashSet<>();
  private final Set<String> avoided;
  private final Set<String> neverOpened = new HashSet<>();

  LeftOutHelpers(Collection<String> avoided) {
    this.avoided = new HashSet<>(avoided);
    all.addAll(avoided);
  }

  /** Every helper left out now, which the planner and the failure messages read and blames add to. */
  Set<String> all() {
    return all;
  }

  /** A helper left out whose stream never opened: it may be asked again. */
  void neverOpened(String node) {
    neverOpened.add(node);
  }

  /**
   * Puts the next group that may be asked again back into the plan, and says why; null when none is left (the repair
   * cannot decode without the helpers it blamed).
   */
  String askAgain() {
    if (!avoided.isEmpty()) {
      return putBack(avoided, "the helpers left out as unusable (" + avoided + ") are needed; asking them after all");
    }
    if (!neverOpened.isEmpty()) {
      return putBack(neverOpened, "the helpers whose streams did not open (" + neverOpened + ") are needed; asking"
          + " them again");
    }
    return null;
  }

  private String putBack(Set<String> nodes, String why) {
    all.removeAll(nodes);
    nodes.clear();
    return why;
  }
}
