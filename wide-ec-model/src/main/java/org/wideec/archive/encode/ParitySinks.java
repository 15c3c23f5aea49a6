package org.wideec.archive.encode;

import java.io.IOException;
import org.wideec.repair.SliceSink;
import org.wideec.topology.Site;

/**
 * Where finished parity units go. A collector writes each of its rows through the sink opened for it: at the
 * collector itself when it is the row's target, otherwise a delivery to the target (on a DataNode, a block written
 * to the target; in tests, memory). Sinks are opened only once every tree's first slice is computed, so an encode
 * that cannot start opens none; a failed encode aborts every sink it opened and only a whole encode finishes them.
 */
@FunctionalInterface
public interface ParitySinks {
  /** Opens the sink of one parity unit ({@code length} bytes), written at {@code collector} for {@code target}. */
  SliceSink open(int parity, long length, Site collector, Site target) throws IOException;
}
