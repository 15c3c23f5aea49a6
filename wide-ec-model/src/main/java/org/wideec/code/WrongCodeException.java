package org.wideec.code;

import java.io.IOException;

/**
 * A decode was about to use another code than the one the stripe was written with. Decoding with another code's
 * matrix yields bytes that look valid and are wrong (SeaweedFS rebuilt shards of custom-ratio volumes with the
 * default RS(10,4) matrix), so the decode is refused before it starts.
 */
public final class WrongCodeException extends IOException {
  public WrongCodeException(String message) {
    super(message);
  }

  /**
   * Refuses {@code offered} unless it is the stripe's code: the same canonical spec, the same on-disk format and the
   * same generator matrix, so neither another code nor the same spec with other coefficients can slip through.
   *
   * @param stripe names the stripe or block group in the error
   */
  public static void requireStripeCode(LinearCode recorded, LinearCode offered, String stripe)
      throws WrongCodeException {
    if (offered == recorded) {
      return;
    }
    String why = null;
    if (!offered.spec().equals(recorded.spec())) {
      why = "the decoder was handed " + offered.spec();
    } else if (offered.formatVersion() != recorded.formatVersion()) {
      why = "the decoder's coefficients are of code format " + offered.formatVersion() + ", not "
          + recorded.formatVersion();
    } else if (!offered.generator().equals(recorded.generator())) {
      why = "the decoder's generator matrix differs from the recorded one";
    }
    if (why != null) {
      throw new WrongCodeException(stripe + " is coded with " + recorded.spec() + " (code format "
          + recorded.formatVersion() + ") but " + why + ": refusing to decode, another code's matrix would rebuild"
          + " wrong bytes");
    }
  }
}
