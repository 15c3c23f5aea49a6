package org.wideec.protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.wideec.repair.BlockRef;
import org.wideec.topology.Endpoint;

/**
 * The updater's order to one node to play one place's role in a stripe's parity update (the model's
 * {@code UpdateRoles.Role}, RackCU §III-A): per slice, compute its own delta from local reads (old data XOR the
 * replacement, or the old data alone for a removed unit), fetch the rows every input transfer brings
 * ({@link UpdateFetchRequest}), send each output transfer's rows (GF(2^8) combinations of what it holds) to whoever
 * fetches them, and at a rewritten parity's node add the parity's delta to its old parity, read locally, and send the
 * sum to the new parity block the NameNode allocated (written on the target this request names, by
 * DataTransferProtocol with the WRITE token). A finalized replica is never rewritten.
 *
 * <p>It carries the READ tokens of the blocks it reads and the WRITE token of the block it writes (both minted by the
 * NameNode for the updater), the update's key that lets its consumers fetch, and the slice port of each input's node.
 * A relay reads no block of its own, so it carries {@code relayToken}: a block of the stripe with the READ token the
 * updater holds for it, proof that the asker may read the stripe whose rows the relay combines (null for any other
 * role). Every node a role dials must be one of the cluster's DataNodes.
 *
 * <p>A unit a fill brings in was a virtual slot: its old content is zeros held in no block. Its request says so
 * ({@code oldDataZero}: the delta is the new block alone; {@code oldParityZero}: a parity that comes on is its delta
 * alone), never by leaving a block out, so a role never takes a missing block for zeros.
 *
 * <p>Each transfer is bound to its consumer: the producing role serves its rows only to the node the updater named
 * for the receiving place, proving the transfer's key (random, given only to that producer and that consumer), so
 * another role of the update, or any other DataNode, cannot take them ({@link UpdateFetchRequest}).
 *
 * <p>Wire format: {@link UpdateRoleCodec}, kind byte {@link #KIND}, version 1 or {@link #VERSION_2} (every request the
 * updater sends now: it says which old units are zeros and binds the transfers). A DataNode that
 * knows only version 1 refuses version 2 by its version, so an older node never reads a zero unit as a missing block nor
 * serves a bound transfer to anyone. A version-1 request (an older updater) still runs, its transfers unbound. The
 * reply is empty frames while the role runs (so the updater's stall timeout never fires on a long update), one result
 * frame ({@link EncodeTreeRequest#resultBytes}: the new parity's length and CRC32C, or none), then
 * END; a failure is an ERROR naming the node to blame. A DataNode older than this request refuses its kind; one older
 * than carried parities refuses a role that holds no row.
 */
public record UpdateRoleRequest(long updateKey, String update, String place, int sliceBytes, long length,
    BlockRef oldData, BlockRef newData, List<Input> inputs, List<Output> outputs, int[] parityDelta,
    BlockRef oldParity, EncodeTreeRequest.ParityOutput newParity, int checksumType, int bytesPerChecksum,
    BlockRef relayToken, boolean oldDataZero, boolean oldParityZero) {
  public static final int KIND = MessageKind.UPDATE_ROLE.code();
  public static final int VERSION = 1;
  /**
   * The version that says which old units are zeros (a fill's virtual slots and the parities it brings on) and binds
   * each transfer to its consumer.
   */
  public static final int VERSION_2 = 2;
  /**
   * Most transfers one role takes or sends, and most rows it holds or sends in all: a role's inputs bring at most one
   * row per changed unit and its outputs at most one per parity (RackCU §III-A), so a stripe's units bound both.
   */
  static final int MAX_TRANSFERS = RequestLimits.STRIPE_UNITS;
  /** HDFS's checksum types a block is written with (DataChecksum.Type CRC32 and CRC32C; the others write none). */
  private static final int CRC32 = 1;
  private static final int CRC32C = 2;
  /** Largest bytes per checksum accepted: HDFS's own chunks are 512 bytes; a writer buffers one chunk. */
  public static final int MAX_BYTES_PER_CHECKSUM = 64 * 1024;

  /**
   * Rows fetched from {@code from} on one transfer of the plan, proving {@code key} (the transfer's key, which only its
   * producer and this consumer are given; 0: an unbound transfer of a version-1 request).
   */
  public record Input(int transfer, int rows, Endpoint from, long key) {
    /** An unbound input, as version 1 describes it. */
    public Input(int transfer, int rows, Endpoint from) {
      this(transfer, rows, from, 0);
    }

    public boolean bound() {
      return key != 0;
    }

    /** Without the key: it is the fetch's authority, never logged. */
    @Override
    public String toString() {
      return "input transfer " + transfer + " of " + rows + " rows from " + from;
    }
  }

  /**
   * Rows sent on one transfer: row i is the sum over j of {@code rows[i][j]} times held row j; served only to
   * {@code consumer} (the node, as the updater names it, that plays the receiving place) proving {@code key}, or to any
   * DataNode naming the update's key when unbound (a version-1 request: null consumer, key 0).
   */
  public record Output(int transfer, int[][] rows, String consumer, long key) {
    public Output {
      rows = Arrays.stream(rows).map(int[]::clone).toArray(int[][]::new);
      if ((consumer == null) != (key == 0)) {
        throw new IllegalArgumentException("output transfer " + transfer + ": a consumer needs its key, a key its"
            + " consumer");
      }
    }

    /** An unbound output, as version 1 describes it. */
    public Output(int transfer, int[][] rows) {
      this(transfer, rows, null, 0);
    }

    public boolean bound() {
      return consumer != null;
    }

    /** Without the key: it is the fetch's authority, never logged. */
    @Override
    public String toString() {
      return "output transfer " + transfer + " of " + rows.length + " rows to " + consumer;
    }

    @Override
    public int[][] rows() {
      return Arrays.stream(rows).map(int[]::clone).toArray(int[][]::new);
    }

    /** Rows sent per slice, without copying them. */
    public int rowCount() {
      return rows.length;
    }
  }

  public UpdateRoleRequest {
    inputs = List.copyOf(inputs);
    outputs = List.copyOf(outputs);
    parityDelta = parityDelta == null ? null : parityDelta.clone();
    String what = "bad update role " + place + " of " + update + ": ";
    if (sliceBytes < 1 || length < 0 || inputs.size() > MAX_TRANSFERS || outputs.size() > MAX_TRANSFERS) {
      throw new IllegalArgumentException(what + "slices of " + sliceBytes + ", length " + length + ", "
          + inputs.size() + " inputs, " + outputs.size() + " outputs; at most " + MAX_TRANSFERS + " of each");
    }
    // Rounded up without adding first: length + sliceBytes - 1 wraps for a length near Long.MAX_VALUE.
    if (length / sliceBytes + (length % sliceBytes == 0 ? 0 : 1) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(what + "length " + length + " in slices of " + sliceBytes + ": more than "
          + Integer.MAX_VALUE + " slices");
    }
    if ((checksumType != CRC32 && checksumType != CRC32C) || bytesPerChecksum < 1
        || bytesPerChecksum > MAX_BYTES_PER_CHECKSUM) {
      throw new IllegalArgumentException(what + "checksum type " + checksumType + " with " + bytesPerChecksum
          + " bytes per checksum; HDFS writes CRC32 (1) or CRC32C (2) over 1.." + MAX_BYTES_PER_CHECKSUM + " bytes");
    }
    if (oldDataZero && (oldData != null || newData == null)) {
      throw new IllegalArgumentException(what + "a unit whose old content is zeros takes its new block and no old one");
    }
    if (newData != null && oldData == null && !oldDataZero) {
      throw new IllegalArgumentException(what + "a replacement block without the block it replaces");
    }
    if (oldParityZero && (oldParity != null || parityDelta == null)) {
      throw new IllegalArgumentException(what + "a parity whose old content is zeros takes its delta and no old block");
    }
    boolean oldParityKnown = oldParity != null || oldParityZero;
    if ((parityDelta != null) != oldParityKnown || (parityDelta == null) != (newParity == null)) {
      throw new IllegalArgumentException(what + "a parity needs its delta, its old block and its new block");
    }
    int held = (oldData == null && !oldDataZero ? 0 : 1);
    long bound = inputs.stream().filter(Input::bound).count() + outputs.stream().filter(Output::bound).count();
    if (bound != 0 && bound != inputs.size() + outputs.size()) {
      throw new IllegalArgumentException(what + "some transfers bound to their consumers and some not");
    }
    for (Input in : inputs) {
      if (in.rows() < 1 || in.rows() > StepRequest.MAX_ROWS) {
        throw new IllegalArgumentException(what + "input transfer " + in.transfer() + " of " + in.rows() + " rows");
      }
      held += in.rows();
    }
    if ((held == 0 && !carriesParity(parityDelta, oldParity)) || held > MAX_TRANSFERS) {
      throw new IllegalArgumentException(what + "it holds " + held + " rows; 1.." + MAX_TRANSFERS
          + " (units in a stripe), or none for a parity carried over to a new length");
    }
    int sent = outputs.stream().mapToInt(Output::rowCount).sum();
    if (sent > MAX_TRANSFERS) {
      throw new IllegalArgumentException(what + "its outputs send " + sent + " rows; at most " + MAX_TRANSFERS
          + " (units in a stripe)");
    }
    if ((relayToken != null) != readsNoBlock(oldData, newData, oldParity)) {
      throw new IllegalArgumentException(what + (relayToken == null ? "a relay without a block token of its stripe"
          : "a block token for a relay, but the role reads blocks of its own"));
    }
    if (newParity != null && length > newParity.block().numBytes()) {
      throw new IllegalArgumentException(what + "length " + length + " past its new parity block " + newParity.block()
          + " of " + newParity.block().numBytes() + " bytes");
    }
    for (Output o : outputs) {
      if (o.rows.length < 1 || o.rows.length > StepRequest.MAX_ROWS) {
        throw new IllegalArgumentException(what + "output transfer " + o.transfer() + " of " + o.rows.length + " rows");
      }
      for (int[] row : o.rows) {
        checkRow(what + "output transfer " + o.transfer(), row, held);
      }
    }
    if (parityDelta != null) {
      checkRow(what + "the parity delta", parityDelta, held);
    }
    for (BlockRef b : new BlockRef[] {oldData, newData, oldParity, newParity == null ? null : newParity.block(),
        relayToken}) {
      if (b != null && b.token().length > WireCodec.MAX_TOKEN) {
        throw new IllegalArgumentException(what + "a block token of " + b.token().length + " bytes for " + b);
      }
    }
  }

  /**
   * A parity the changed units do not touch, rewritten only because the stripe's unit length changes: its new block is
   * its old one zero-padded or cut to the new length (past the longest remaining data unit every unit is zero).
   */
  private static boolean carriesParity(int[] parityDelta, BlockRef oldParity) {
    return parityDelta != null && parityDelta.length == 0 && oldParity != null;
  }

  /** A relay, or a parity coming on fed by others only: it proves its asker may read the stripe by a relay token. */
  static boolean readsNoBlock(BlockRef oldData, BlockRef newData, BlockRef oldParity) {
    return oldData == null && newData == null && oldParity == null;
  }

  /** A role as version 1 describes it: every old unit it reads is a block. */
  public UpdateRoleRequest(long updateKey, String update, String place, int sliceBytes, long length,
      BlockRef oldData, BlockRef newData, List<Input> inputs, List<Output> outputs, int[] parityDelta,
      BlockRef oldParity, EncodeTreeRequest.ParityOutput newParity, int checksumType, int bytesPerChecksum,
      BlockRef relayToken) {
    this(updateKey, update, place, sliceBytes, length, oldData, newData, inputs, outputs, parityDelta, oldParity,
        newParity, checksumType, bytesPerChecksum, relayToken, false, false);
  }

  private static void checkRow(String what, int[] row, int held) {
    if (row.length != held) {
      throw new IllegalArgumentException(what + " combines " + row.length + " rows, the role holds " + held);
    }
    for (int c : row) {
      if (c < 0 || c > 255) {
        throw new IllegalArgumentException(what + " has coefficient " + c);
      }
    }
  }

  @Override
  public int[] parityDelta() {
    return parityDelta == null ? null : parityDelta.clone();
  }

  /** The blocks whose READ tokens the role carries: those it reads, or a relay's token of its stripe. */
  public List<BlockRef> readTokens() {
    List<BlockRef> out = new ArrayList<>();
    for (BlockRef b : new BlockRef[] {oldData, newData, oldParity, relayToken}) {
      if (b != null) {
        out.add(b);
      }
    }
    return out;
  }

  /** Rows the role holds per slice: its own delta, then every input's rows. */
  public int heldRows() {
    return (ownDelta() ? 1 : 0) + inputs.stream().mapToInt(Input::rows).sum();
  }

  /** Whether the role computes a changed unit's delta from local reads (old XOR new, or the new block alone). */
  public boolean ownDelta() {
    return oldData != null || oldDataZero;
  }

  public int slices() {
    return StepRequest.slices(length, sliceBytes);
  }

  public int sliceLength(int slice) {
    return StepRequest.sliceLength(length, sliceBytes, slice);
  }

  private static final java.util.regex.Pattern OLDER_REFUSAL = java.util.regex.Pattern.compile(
      "not an update role of versions \\d+ to (\\d+) \\(kind " + KIND + ", version (\\d+)\\)");

  /**
   * Whether {@code failure} (or a cause) is a DataNode's refusal of a request by its version byte, newer than the
   * newest it knows: an older DataNode, in a rolling upgrade, that the updater can leave out by computing the stripe
   * in its own process.
   */
  public static boolean refusedAsNewer(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      java.util.regex.Matcher m = t.getMessage() == null ? null : OLDER_REFUSAL.matcher(t.getMessage());
      if (m != null && m.find() && Integer.parseInt(m.group(2)) > Integer.parseInt(m.group(1))) {
        return true;
      }
    }
    return false;
  }

  /** Whether a request body is one of these. */
  public static boolean isOne(byte[] body) {
    return MessageKind.peek(body) == MessageKind.UPDATE_ROLE;
  }

  /** The request's bytes ({@link UpdateRoleCodec}): version 1 unless a unit is zeros or its transfers are bound. */
  public byte[] toBytes() {
    return UpdateRoleCodec.toBytes(this);
  }

  /** Whether every transfer is bound to its consumer (the updater binds all or none). */
  public boolean bound() {
    return inputs.stream().anyMatch(Input::bound) || outputs.stream().anyMatch(Output::bound);
  }

  /** @throws IOException naming what is wrong with a malformed, truncated or out-of-bounds request */
  public static UpdateRoleRequest parse(byte[] bytes) throws IOException {
    return UpdateRoleCodec.parse(bytes);
  }

  @Override
  public String toString() {
    return "role " + place + " of " + update + " (" + inputs.size() + " inputs, " + outputs.size() + " outputs"
        + (parityDelta == null ? "" : ", writes its new parity") + ")";
  }
}
