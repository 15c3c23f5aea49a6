package org.wideec.code;

import java.util.Arrays;

/**
 * A local group: units whose sum (with the given coefficients) is zero, so any one of them is repaired
 * from the others. {@code members} includes the local parity; {@code xor} says every coefficient is 1.
 */
public record LocalGroup(int index, int[] members, int localParity, boolean xor) {
  public LocalGroup {
    members = members.clone();
    Arrays.sort(members);
    if (Arrays.binarySearch(members, localParity) < 0) {
      throw new IllegalArgumentException("local parity " + localParity + " is not a member of group " + index);
    }
  }

  @Override
  public int[] members() {
    return members.clone();
  }

  public boolean contains(int unit) {
    return Arrays.binarySearch(members, unit) >= 0;
  }

  public int size() {
    return members.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LocalGroup g && g.index == index && g.localParity == localParity && g.xor == xor
        && Arrays.equals(g.members, members);
  }

  @Override
  public int hashCode() {
    return 31 * index + Arrays.hashCode(members);
  }

  @Override
  public String toString() {
    return "L" + index + Arrays.toString(members) + (xor ? " xor" : "");
  }
}
