package org.wideec.update;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.wideec.gf.Gf256;

/**
 * An update plan as the places that carry it out see it: per place (a unit's node or a rack's relay), the delta it
 * computes from its own unit, the rows it receives (one per chunk of each incoming transfer), the rows it sends on
 * each outgoing transfer, and, at a parity's node, the parity's delta. Every row a place sends or keeps is a GF(2^8)
 * combination of the rows it holds, so an executor needs no knowledge of schemes: per slice it computes its own
 * delta, receives its inputs, and evaluates the combinations. A place that sends on several transfers (RackCU's
 * collector fanning out to the parity racks, §III-A) computes each row once from one copy of its inputs, so every
 * chunk the plan counts crosses the wire exactly once.
 *
 * <p>Derived from the plan in its order ({@link RoleDerivation}), with the same checks as {@link UpdateExecution} (a
 * source must hold what it sends, every renewed parity must end with exactly its generator row over the changed units'
 * deltas, a parity the pattern drops gets no role). So each transfer combines only its own delta and rows of
 * transfers earlier in the plan: places may feed each other (CAU's racks that hold both changed data and parities each
 * renew the other's parities, §V-A) and still stream, as long as a place sends each transfer once the inputs that
 * transfer uses have arrived rather than after all of them. Pure data; {@link #apply} is its reference executor, in
 * that order.
 */
public final class UpdateRoles {
  /** Rows a place receives on one transfer, in the transfer's unit (DATA_DELTA) or parity (PARITY_DELTA) order. */
  public record Input(int transfer, Place from, int rows) {}

  /**
   * Rows a place sends on one transfer: row i is the sum over j of {@code rows[i][j]} times held row j.
   */
  public record Output(int transfer, Place to, int[][] rows) {
    public Output {
      rows = deepCopy(rows);
    }

    @Override
    public int[][] rows() {
      return deepCopy(rows);
    }
  }

  /**
   * One place's part. Its held rows are its own delta (when {@code ownDelta} names a data unit) followed by the rows
   * of its inputs in order.
   *
   * @param ownDelta the changed data unit whose delta (old XOR new) this place computes from local reads, or -1
   * @param parityDelta at a rewritten parity's node, the combination of held rows that is its delta; else null
   */
  public record Role(Place place, int ownDelta, List<Input> inputs, List<Output> outputs, int[] parityDelta) {
    public Role {
      inputs = List.copyOf(inputs);
      outputs = List.copyOf(outputs);
      parityDelta = parityDelta == null ? null : parityDelta.clone();
    }

    @Override
    public int[] parityDelta() {
      return parityDelta == null ? null : parityDelta.clone();
    }

    /** Rows this place holds per slice: its own delta and every input row. */
    public int heldRows() {
      return (ownDelta >= 0 ? 1 : 0) + inputs.stream().mapToInt(Input::rows).sum();
    }

    /** The parity this place rewrites, or -1. */
    public int parity() {
      return parityDelta == null ? -1 : place.unit();
    }
  }

  private final UpdatePlan plan;
  private final Map<Place, Role> roles;
  private final List<Place> order;

  private UpdateRoles(UpdatePlan plan, Map<Place, Role> roles, List<Place> order) {
    this.plan = plan;
    this.roles = roles;
    this.order = order;
  }

  /**
   * The roles of a delta plan.
   *
   * @throws IllegalArgumentException naming the transfer, unit or places when the plan re-encodes, uses Parix's
   *     new-data transfers, sends what its source does not hold (yet: a row a later transfer brings), or leaves a
   *     parity incomplete
   */
  public static UpdateRoles of(UpdatePlan plan) {
    if (plan.reEncode()) {
      throw new IllegalArgumentException(plan.scheme() + ": a re-encoding plan writes every parity afresh from the"
          + " live data, it carries no deltas");
    }
    Map<Place, Role> roles = RoleDerivation.of(plan);
    return new UpdateRoles(plan, roles, List.copyOf(roles.keySet()));
  }

  public UpdatePlan plan() {
    return plan;
  }

  /** Every place's role, in the order the plan first names the places. */
  public List<Role> roles() {
    return order.stream().map(roles::get).toList();
  }

  public Role role(Place p) {
    return roles.get(p);
  }

  /** The parities the plan rewrites, ascending. */
  public int[] rewrittenParities() {
    return roles.values().stream().mapToInt(Role::parity).filter(p -> p >= 0).sorted().toArray();
  }

  /**
   * The reference run on whole units, as an executor streams slice by slice: the transfers in plan order, each
   * combining its source's own delta and the rows that reached it before, then each parity's delta once every row
   * arrived.
   *
   * @param oldUnits all n units before the update, equal lengths
   * @param newData the new content of each changed data unit (index = unit; others ignored)
   * @param sentRows per transfer index, rows it put on the wire (filled in; may be null)
   * @return all n units after the update
   */
  public byte[][] apply(byte[][] oldUnits, byte[][] newData, int[] sentRows) {
    int n = plan.pattern().code().n();
    int len = oldUnits[0].length;
    byte[][] after = new byte[n][];
    for (int u = 0; u < n; u++) {
      after[u] = u < plan.pattern().code().k() && plan.pattern().isChanged(u) ? newData[u].clone()
          : oldUnits[u].clone();
    }
    Map<Place, List<byte[]>> held = new HashMap<>(); // per place, the rows it holds so far, in its held order
    for (Place p : order) {
      Role r = roles.get(p);
      held.put(p, new ArrayList<>());
      if (r.ownDelta() >= 0) {
        held.get(p).add(xor(oldUnits[r.ownDelta()], newData[r.ownDelta()]));
      }
    }
    List<Transfer> ts = plan.transfers();
    for (int t = 0; t < ts.size(); t++) {
      Place from = ts.get(t).from();
      int transfer = t;
      Output out = roles.get(from).outputs().stream().filter(o -> o.transfer() == transfer).findFirst().orElseThrow();
      int[][] rows = out.rows();
      for (int[] row : rows) {
        held.get(out.to()).add(combine(row, held.get(from), len));
      }
      if (sentRows != null) {
        sentRows[t] += rows.length;
      }
    }
    for (Place p : order) {
      Role r = roles.get(p);
      if (r.parity() >= 0) {
        after[r.parity()] = xor(oldUnits[r.parity()], combine(r.parityDelta(), held.get(p), len));
      }
    }
    for (int p : plan.pattern().droppedParities()) {
      after[p] = new byte[len]; // virtual after the update: a known zero block, freed rather than written
    }
    return after;
  }

  /** Row {@code coef} over the rows held so far; a row not yet held must have coefficient 0 (it came later). */
  private static byte[] combine(int[] coef, List<byte[]> held, int len) {
    byte[] out = new byte[len];
    for (int j = 0; j < coef.length; j++) {
      if (coef[j] != 0) {
        if (j >= held.size()) {
          throw new IllegalStateException("a row combines held row " + j + " before it arrived");
        }
        byte[] h = held.get(j);
        for (int b = 0; b < len; b++) {
          out[b] ^= (byte) Gf256.multiply(coef[j], h[b] & 0xff);
        }
      }
    }
    return out;
  }

  private static byte[] xor(byte[] a, byte[] b) {
    byte[] c = new byte[a.length];
    for (int i = 0; i < a.length; i++) {
      c[i] = (byte) (a[i] ^ b[i]);
    }
    return c;
  }

  /** How a place is named in errors and requests: d3@R2, p0@R5, relay@R4. */
  public String nameOf(Place p) {
    return name(plan, p);
  }

  static String name(UpdatePlan plan, Place p) {
    UpdatePattern pat = plan.pattern();
    return p.isRelay() ? "relay@" + pat.rackName(p.rack()) : pat.unitName(p.unit()) + "@" + pat.rackName(p.rack());
  }

  private static int[][] deepCopy(int[][] rows) {
    int[][] c = new int[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      c[i] = rows[i].clone();
    }
    return c;
  }
}
