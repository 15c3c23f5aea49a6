package org.wideec.repair;

/**
 * One helper's part of a repair: multiply its unit by the coefficient, add what it received from the
 * previous step (if any) and send the sum to {@code next} (a step index), or to the requestor when next is -1.
 */
public record RepairStep(UnitLocation helper, int coefficient, int next) {
  public static final int REQUESTOR = -1;
}
