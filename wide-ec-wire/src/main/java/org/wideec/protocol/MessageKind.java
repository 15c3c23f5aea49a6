package org.wideec.protocol;

import java.io.IOException;
import org.wideec.repair.RepairScheme;

/**
 * Every kind of request the slice port takes, by the byte that opens it: the one place a kind is allocated. A new
 * kind gets a byte no DataNode of an earlier release knows, so that node refuses it as a step of unknown kind
 * rather than misreading it (kinds 0..2 are the steps, which every release reads). Two kinds with one byte fail
 * the class's initialization.
 */
public enum MessageKind {
  /** A one-row step of a repair or encode (version 1). */
  STEP(0x00, Family.STEP),
  /** The CRC32C of a stored replica (version 1). */
  DIGEST(0x01, Family.STEP),
  /** A multi-row step of an encode (ECWide §4.2; version 2). */
  ROWS_STEP(0x02, Family.STEP),
  /** The NameNode's order to rebuild one unit of an archived stripe on the receiving node. */
  REBUILD(0x03, Family.REBUILD),
  /** The NameNode's order to rebuild several units of one stripe by one decode, each to its own target. */
  JOINT_REBUILD(0x04, Family.REBUILD),
  /**
   * The NameNode's order to rebuild lost units of a block group whose CRC32C nobody holds (their DataNode died): the
   * joint layout, each unit checked by the worker's second decode instead.
   */
  UNCHECKED_REBUILD(0x05, Family.REBUILD),
  /**
   * The NameNode's order to rebuild units along the rack chain a full-node recovery plan chose: the joint layout, a
   * flag for units with no known CRC32C, and the order in which the rack-aggregated chain visits its racks.
   */
  CHAINED_REBUILD(0x06, Family.REBUILD),
  /** A requestor's word to an inner helper of its plan to dial its upstreams now ('D'). */
  DIAL_AHEAD(0x44, Family.DIAL_AHEAD),
  /** A client's range of a lost block of an archived file ('A'). */
  ARCHIVED_READ(0x41, Family.ARCHIVED_READ),
  /** The archiver's order to collect one tree of a chain encode ('E'). */
  ENCODE_TREE(0x45, Family.ENCODE_TREE),
  /** The NameNode's order to pin archived replicas ('P'). */
  PIN(0x50, Family.PIN),
  /** One position of a RapidRAID pipeline ('R'). */
  RAPIDRAID_POSITION(0x52, Family.RAPIDRAID_POSITION),
  /** The updater's order to play one place's role in a stripe's parity update ('U'). */
  UPDATE_ROLE(0x55, Family.UPDATE),
  /** A role's pull of the rows another role sends it on one transfer of the update ('V'). */
  UPDATE_FETCH(0x56, Family.UPDATE),
  /** A scrub's linear summary of a stored replica (version 1). */
  SUMMARY(0x60, Family.SUMMARY),
  /** A scrub's in-rack sum of several replicas' summaries, one page per check row (version 1). */
  RACK_SUM(0x61, Family.SUMMARY),
  /** An operator's order to set a DataNode's background caps ('C'). */
  CAPS(0x43, Family.CAPS);

  /** The record a kind decodes to; a family may span versions (steps, rebuilds). */
  public enum Family {
    STEP, DIAL_AHEAD, REBUILD, ARCHIVED_READ, ENCODE_TREE, PIN, RAPIDRAID_POSITION, UPDATE, SUMMARY, CAPS
  }

  private static final MessageKind[] BY_BYTE = new MessageKind[256];

  static {
    for (MessageKind k : values()) {
      if (BY_BYTE[k.code] != null) {
        throw new ExceptionInInitializerError("message kinds " + BY_BYTE[k.code] + " and " + k + " share byte "
            + hex(k.code));
      }
      BY_BYTE[k.code] = k;
    }
  }

  private final int code;
  private final Family family;

  MessageKind(int code, Family family) {
    this.code = code;
    this.family = family;
  }

  /** The byte that opens a message of this kind. */
  public int code() {
    return code;
  }

  public Family family() {
    return family;
  }

  /** The kind a body opens with; null when it is empty or opens with a byte no kind has. */
  public static MessageKind peek(byte[] body) {
    return body.length == 0 ? null : BY_BYTE[body[0] & 0xff];
  }

  /** Whether a body opens with a kind of this family. */
  public static boolean isOf(byte[] body, Family family) {
    MessageKind k = peek(body);
    return k != null && k.family == family;
  }

  /** @throws IOException naming the byte, when the body is empty or opens with a byte no kind has */
  public static MessageKind of(byte[] body) throws IOException {
    if (body.length == 0) {
      throw new IOException("an empty request has no message kind");
    }
    MessageKind k = BY_BYTE[body[0] & 0xff];
    if (k == null) {
      throw new IOException("request of unknown kind " + hex(body[0] & 0xff) + " (known: " + known() + ")");
    }
    return k;
  }

  /**
   * Decodes any request: its record, by the byte it opens with.
   *
   * @param scheme the receiving node's repair scheme, which a rebuild order runs under
   * @throws IOException naming an unknown kind's byte or what is malformed
   */
  public static Object decode(byte[] body, RepairScheme scheme) throws IOException {
    return switch (of(body).family) {
      case STEP -> StepRequest.parse(body);
      case DIAL_AHEAD -> DialAheadRequest.parse(body);
      case REBUILD -> RebuildRequest.parse(body, scheme);
      case ARCHIVED_READ -> ArchivedReadRequest.parse(body);
      case ENCODE_TREE -> EncodeTreeRequest.parse(body);
      case PIN -> PinRequest.parse(body);
      case RAPIDRAID_POSITION -> RapidRaidStepRequest.parse(body);
      case UPDATE -> of(body) == UPDATE_ROLE ? UpdateRoleRequest.parse(body) : UpdateFetchRequest.parse(body);
      case SUMMARY -> of(body) == SUMMARY ? SummaryRequest.parse(body) : RackSumRequest.parse(body);
      case CAPS -> CapsRequest.parse(body);
    };
  }

  private static String known() {
    StringBuilder b = new StringBuilder();
    for (MessageKind k : values()) {
      b.append(b.length() == 0 ? "" : ", ").append(hex(k.code)).append(' ').append(k.name().toLowerCase());
    }
    return b.toString();
  }

  static String hex(int code) {
    return String.format("0x%02x", code);
  }
}
