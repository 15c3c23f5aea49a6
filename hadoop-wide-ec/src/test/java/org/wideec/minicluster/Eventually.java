package org.wideec.minicluster;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import org.wideec.time.Backoff;

/**
 * The one way a test waits for something a cluster does in its own time (a rebuild, a trim, a block report): look,
 * pause (short at first, doubling to a fifth of a second), look again, and fail once the timeout has passed with a
 * message naming what was awaited and what was seen last. The timeout bounds a wait that would otherwise hang a
 * suite; no test asserts how long anything took.
 */
public final class Eventually {
  private static final long FIRST_PAUSE_MS = 10;
  private static final long MAX_PAUSE_MS = 200;

  /** A look at the cluster that may fail (an IOException from a NameNode call, say): that fails the wait. */
  @FunctionalInterface
  public interface Look<T> {
    T now() throws Exception;
  }

  private Eventually() {}

  /** Waits until {@code condition} holds; the failure names {@code what}. */
  public static void await(String what, Duration timeout, Look<Boolean> condition) {
    poll(what, timeout, condition, Boolean.TRUE::equals, false);
  }

  /**
   * Waits until what {@code look} sees satisfies {@code done}, and returns it; the failure names {@code what} and the
   * last value seen (a count, the nodes holding a block, a log).
   */
  public static <T> T await(String what, Duration timeout, Look<T> look, Predicate<? super T> done) {
    return poll(what, timeout, look, done, true);
  }

  private static <T> T poll(String what, Duration timeout, Look<T> look, Predicate<? super T> done, boolean say) {
    Objects.requireNonNull(what, "what");
    Backoff pause = Backoff.doubling(FIRST_PAUSE_MS, MAX_PAUSE_MS, timeout.toMillis());
    while (true) {
      T seen;
      try {
        seen = look.now();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new AssertionError("while waiting for " + what + ": " + e, e);
      }
      if (done.test(seen)) {
        return seen;
      }
      if (pause.expired()) {
        throw new AssertionError("not within " + timeout.toSeconds() + " s: " + what + (say ? "; last seen: " + seen : ""));
      }
      try {
        pause.pause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
