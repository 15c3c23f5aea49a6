package org.wideec.coder;

/** Which units a decode reads and the matrix that turns them into the wanted units. Immutable. */
record DecodePlan(int[] inputs, int[] wanted, CodingMatrix matrix) {}
