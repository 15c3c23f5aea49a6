package org.wideec.code;

/** What a unit (chunk, block) of a stripe holds. */
public enum UnitRole {
  DATA,
  GLOBAL_PARITY,
  LOCAL_PARITY,
  /** A coded unit of a non-systematic code (RapidRAID): neither plain data nor a pure parity. */
  CODED;

  public String shortName() {
    return switch (this) {
      case DATA -> "d";
      case GLOBAL_PARITY -> "g";
      case LOCAL_PARITY -> "l";
      case CODED -> "c";
    };
  }
}
