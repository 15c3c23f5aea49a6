package org.wideec.engine;

import org.wideec.protocol.UpdateRoleRequest;

/**
 * How much memory a role of a parity update may buffer, in slices and bytes: what the DataNode's
 * {@link UpdateRoleService} admits a request against and what the updater sizes its slices by, so a legitimate update
 * is never refused and a request cannot ask for more than a few repairs hold.
 */
public final class UpdateRoleBudget {
  /** Frames of the transport's largest one role may buffer. */
  static final int ROLE_FRAMES = 32;

  private UpdateRoleBudget() {}

  /** Bytes one role may buffer: {@link #ROLE_FRAMES} frames. */
  public static long roleBudget(int maxFrameBytes) {
    return (long) ROLE_FRAMES * maxFrameBytes;
  }

  /**
   * Slices a role buffers at once: its held rows (and the old parity), two working slices, one combination's rows,
   * each output's window of slices plus the one being left, and the transport's credits of every input's frames.
   */
  public static long bufferedSlices(int heldRows, boolean parity, int maxOutputRows, int outputRows, int inputRows,
      int creditWindow) {
    return heldRows + (parity ? 1 : 0) + 2L + maxOutputRows + (UpdateOutboxes.WINDOW + 1L) * outputRows
        + (long) creditWindow * inputRows;
  }

  /** Bytes the role this request asks for buffers, with the transport's credit window. */
  static long footprint(UpdateRoleRequest req, int creditWindow) {
    int inputRows = req.inputs().stream().mapToInt(UpdateRoleRequest.Input::rows).sum();
    int outputRows = req.outputs().stream().mapToInt(UpdateRoleRequest.Output::rowCount).sum();
    int maxOutputRows = req.outputs().stream().mapToInt(UpdateRoleRequest.Output::rowCount).max().orElse(0);
    return req.sliceBytes() * bufferedSlices(req.heldRows(), req.parityDelta() != null, maxOutputRows, outputRows,
        inputRows, creditWindow);
  }
}
