package org.wideec.repair;

/** Where one unit of a stripe lives. */
public record UnitLocation(int unit, String node, String rack) {}
