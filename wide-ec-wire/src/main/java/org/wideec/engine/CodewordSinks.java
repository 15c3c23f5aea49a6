package org.wideec.engine;

import java.io.IOException;
import org.wideec.repair.SliceSink;
import org.wideec.protocol.RapidRaidStepRequest;

/**
 * Where a node of RapidRAID's pipeline stores its codeword c_i: on a DataNode, a block written as the request's
 * {@link RapidRaidStepRequest#output()} says; in a benchmark or test, memory or a checksum. A sink is opened once the
 * position's first slice is computed (its upstream and its pieces all answered), finished when the position's
 * last slice is written and its upstream ended cleanly, aborted on any failure. A finished codeword counts for
 * nothing until the archiver has every codeword's report and verifies them (the archival state machine).
 */
@FunctionalInterface
public interface CodewordSinks {
  SliceSink open(RapidRaidStepRequest step) throws IOException;
}
